import { ConfirmAction } from "../../../components/ConfirmAction";
import { useRevokeToken } from "../api/revoke-token";

/** Revoking is two clicks: the first asks, the second does; the token stops working at once. */
export function RevokeToken({ name }: { name: string }) {
  const revoke = useRevokeToken();
  return (
    <ConfirmAction
      verb="Revoke"
      name={name}
      pending={revoke.isPending}
      error={revoke.isError ? revoke.error : null}
      onConfirm={() => revoke.mutate(name)}
      testIds={{ ask: `token-revoke-${name}`, confirm: `token-revoke-confirm-${name}` }}
    />
  );
}

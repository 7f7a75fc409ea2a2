import { useState } from "react";
import { messageOf } from "../../../components/Status";
import { useRevokeToken } from "../api/revoke-token";

/** Revoking is two clicks: the first asks, the second does; the token stops working at once. */
export function RevokeToken({ name }: { name: string }) {
  const [asking, setAsking] = useState(false);
  const revoke = useRevokeToken();
  if (!asking)
    return (
      <button
        type="button"
        className="danger-quiet"
        onClick={() => setAsking(true)}
        data-testid={`token-revoke-${name}`}
      >
        Revoke…
      </button>
    );
  return (
    <span className="confirm-remove">
      <button
        type="button"
        className="danger"
        disabled={revoke.isPending}
        onClick={() => revoke.mutate(name)}
        data-testid={`token-revoke-confirm-${name}`}
      >
        Revoke {name}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
      {revoke.isError && (
        <span className="field-error" role="alert">
          {messageOf(revoke.error)}
        </span>
      )}
    </span>
  );
}

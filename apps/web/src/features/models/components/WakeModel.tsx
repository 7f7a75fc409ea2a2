import { contract } from "@llmgw/contract";
import { ActionError } from "../../../components/ActionError";
import { useMayCall } from "../../../lib/session";
import { useWakeModel } from "../api/wake-model";

/** "Wake" on an on-demand model's card: one replica, as a request would bring, until idle. */
export function WakeModel({ name }: { name: string }) {
  const mayWake = useMayCall(contract.models.wake);
  const wake = useWakeModel();
  if (!mayWake) return null;
  return (
    <div className="actions">
      <button
        type="button"
        disabled={wake.isPending}
        onClick={() => wake.mutate(name)}
        data-testid="model-wake"
      >
        {wake.isPending ? "Waking…" : `Wake ${name}`}
      </button>
      <span role="status" className="saved" data-testid="model-woken">
        {wake.isSuccess ? "Woken: a replica is wanted until it goes idle" : ""}
      </span>
      <ActionError error={wake.isError ? wake.error : null} />
    </div>
  );
}

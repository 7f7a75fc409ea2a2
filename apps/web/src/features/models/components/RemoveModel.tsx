import { useState } from "react";
import { messageOf } from "../../../components/Status";
import { useDeleteModel } from "../api/delete-model";

/** Removing a model is two clicks: the first asks, the second does. */
export function RemoveModel({ name }: { name: string }) {
  const [asking, setAsking] = useState(false);
  const remove = useDeleteModel();
  if (!asking)
    return (
      <button
        type="button"
        className="danger-quiet"
        onClick={() => setAsking(true)}
        data-testid="model-remove"
      >
        Remove…
      </button>
    );
  return (
    <span className="confirm-remove">
      <button
        type="button"
        className="danger"
        disabled={remove.isPending}
        onClick={() => remove.mutate(name)}
        data-testid="model-remove-confirm"
      >
        Remove {name}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
      {remove.isError && (
        <span className="field-error" role="alert">
          {messageOf(remove.error)}
        </span>
      )}
    </span>
  );
}

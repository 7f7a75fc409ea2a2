import { useState } from "react";
import { ActionError } from "./ActionError";

/**
 * A destructive action in two clicks: the first asks ("Remove…"), the second does it ("Remove
 * tiny"), with Cancel beside it and the server's refusal under it.
 */
export function ConfirmAction({
  verb,
  name,
  pending,
  error,
  onConfirm,
  testIds,
}: {
  verb: string;
  name: string;
  pending: boolean;
  /** The last attempt's failure, if it failed. */
  error: unknown;
  onConfirm: () => void;
  testIds: { ask: string; confirm: string };
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button
        type="button"
        className="danger-quiet"
        onClick={() => setAsking(true)}
        data-testid={testIds.ask}
      >
        {verb}…
      </button>
    );
  return (
    <span className="confirm-remove">
      <button
        type="button"
        className="danger"
        disabled={pending}
        onClick={onConfirm}
        data-testid={testIds.confirm}
      >
        {verb} {name}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
      <ActionError error={error} />
    </span>
  );
}

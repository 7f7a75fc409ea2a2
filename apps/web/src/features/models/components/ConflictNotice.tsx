import type { ConflictBody, ModelPatch } from "@llmgw/domain";
import { auditChange } from "../../../lib/audit-text";
import { ago } from "../../../lib/units";
import { describePatch } from "../card-fields";

type Props = {
  conflict: ConflictBody;
  mine: ModelPatch;
  busy: boolean;
  onReapply: () => void;
  onDiscard: () => void;
};

/** A stale save: what changed while the operator was editing, by whom, and their own edit to re-apply. */
export function ConflictNotice({ conflict, mine, busy, onReapply, onDiscard }: Props) {
  return (
    <div className="notice notice-warn" role="alert" data-testid="model-conflict">
      <p>
        <strong>{conflict.current.name} changed while you were editing.</strong> Your save was not applied.
      </p>
      {conflict.changedSince.length > 0 ? (
        <ul className="conflict-changes" data-testid="conflict-changes">
          {conflict.changedSince.map((entry) => (
            <li key={entry.id}>
              <strong>{entry.by || "someone"}</strong> changed {auditChange(entry)}{" "}
              <time dateTime={entry.at} className="muted">
                {ago(entry.at)}
              </time>
            </li>
          ))}
        </ul>
      ) : (
        <p>It is now at version {conflict.current.version}.</p>
      )}
      <p>
        Your changes: <span data-testid="conflict-mine">{describePatch(mine)}</span>
      </p>
      <div className="actions">
        <button type="button" className="primary" onClick={onReapply} disabled={busy}>
          Re-apply my changes
        </button>
        <button type="button" onClick={onDiscard} disabled={busy}>
          Keep theirs
        </button>
      </div>
    </div>
  );
}

import type { ReplicaProgress as Progress, Replica } from "@llmgw/domain";
import { bytes, bytesOf, percent } from "../lib/units";

/** What a starting replica is doing, in words: "downloading 1.2 / 4.1 GB (29%)", "loading". */
export function progressText(progress: Progress): string {
  const { phase, bytesDone, bytesTotal } = progress;
  if (phase === "load") return "loading";
  if (bytesTotal === null) return `downloading ${bytes(bytesDone)}`;
  return `downloading ${bytesOf(bytesDone, bytesTotal)} (${percent(bytesDone, bytesTotal)}%)`;
}

/**
 * A starting replica's download or load as a bar. Indeterminate when the size is not known, and
 * while the engine loads (an engine reports no bytes for that: a full bar would read as done).
 */
export function ProgressBar({ progress, label }: { progress: Progress; label: string }) {
  const text = progressText(progress);
  const { phase, bytesDone, bytesTotal } = progress;
  const known = phase === "download" && bytesTotal !== null && bytesTotal > 0;
  return (
    <span className="replica-progress" data-testid="replica-progress">
      <span className="replica-progress-text" data-phase={phase}>
        {text}
      </span>
      {known ? (
        <progress aria-label={`${label}: ${text}`} max={bytesTotal} value={Math.min(bytesDone, bytesTotal)} />
      ) : (
        <progress aria-label={`${label}: ${text}`} />
      )}
    </span>
  );
}

/** Replicas worth a line on a card: downloading or loading, or held back for a reason. */
function worthALine(replica: Replica): boolean {
  return replica.progress !== null || (replica.reason !== null && replica.state !== "ready");
}

/** Lines a card gives replicas at most: ten pending replicas of one model share one reason. */
const MOST_LINES = 3;

/**
 * The card's lines for replicas on their way up (or stuck), so a download shows without opening
 * the replica list. Nothing when every replica is simply running.
 */
export function ReplicaActivity({ replicas }: { replicas: Replica[] }) {
  const worth = replicas.filter(worthALine);
  if (worth.length === 0) return null;
  // Downloads and loads first: they move; a reason repeats.
  const shown = [...worth].sort((a, b) => Number(b.progress !== null) - Number(a.progress !== null));
  const more = shown.length - MOST_LINES;
  return (
    <ul
      className="plain-list replica-activity"
      aria-label="Replicas starting or held back"
      data-testid="replica-activity"
    >
      {shown.slice(0, MOST_LINES).map((r) => {
        const where = r.node === null ? "not placed" : `on ${r.node}`;
        return (
          <li key={r.id} data-testid={`replica-activity-${r.id}`}>
            <span className="replica-activity-head">
              <span className={`state state-${r.state}`}>{r.state}</span>{" "}
              <span className="muted">
                {r.id} {where}
              </span>
            </span>
            {r.progress && <ProgressBar progress={r.progress} label={`Replica ${r.id}`} />}
            {r.reason && (
              <span className="replica-reason" data-testid="replica-reason">
                {r.reason}
              </span>
            )}
          </li>
        );
      })}
      {more > 0 && (
        <li className="muted" data-testid="replica-activity-more">
          and {more} more
        </li>
      )}
    </ul>
  );
}

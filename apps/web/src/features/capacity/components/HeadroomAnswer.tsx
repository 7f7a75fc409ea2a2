import type { HeadroomSummary } from "@llmgw/domain";
import { headroomWords } from "../headroom-words";

/**
 * What a model can still get, the number an operator acts on, set large; beneath it how: now, on
 * free room, and by preempting whom. A model that fits only by preempting is said to, so a fit
 * that costs other models' replicas never reads like one that costs nothing.
 */
export function HeadroomAnswer({ headroom }: { headroom: HeadroomSummary }) {
  const words = headroomWords(headroom);
  return (
    <div className="headroom-answer">
      <p className="headroom-total" data-testid="headroom-total">
        <span className="big">{words.big}</span> {words.after}
        {words.onlyByPreempting && <OnlyByPreempting />}{" "}
        <span className="muted" data-testid="headroom-limited-by">
          limited by {headroom.limitedBy}
        </span>
      </p>
      <ul className="headroom-parts">
        <li data-testid="headroom-free">{words.now}</li>
        <li data-testid="headroom-preempt">{words.preempting}</li>
        <li>
          quota: <span data-testid="headroom-quota">{words.quota}</span>
          {headroom.quotaRemaining !== null && " left"}
        </li>
      </ul>
    </div>
  );
}

/** The mark of a fit that costs other models' replicas. */
export function OnlyByPreempting() {
  return (
    <span className="badge badge-warn" data-testid="headroom-only-preempting">
      only by preempting
    </span>
  );
}

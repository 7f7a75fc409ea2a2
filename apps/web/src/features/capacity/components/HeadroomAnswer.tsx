import { counted, type HeadroomSummary } from "@llmgw/domain";
import { victimsText } from "../board";

/**
 * What a model can still get, the number an operator acts on, set large; beneath it how: now, on
 * free room, and by preempting whom. A model that fits only by preempting is said to, so a fit
 * that costs other models' replicas never reads like one that costs nothing.
 */
export function HeadroomAnswer({ headroom }: { headroom: HeadroomSummary }) {
  const total = headroom.total ?? 0;
  const free = headroom.free ?? 0;
  const preempt = headroom.byPreemption ?? 0;
  const victims = victimsText(headroom.victimsByClass);
  const onlyByPreempting = total > 0 && free === 0;
  return (
    <div className="headroom-answer">
      <p className="headroom-total" data-testid="headroom-total">
        <span className="big">{total === 0 ? "No more" : `+${total}`}</span>{" "}
        {total === 0 ? "replicas can start" : `more can start`}
        {onlyByPreempting && (
          <span className="badge badge-warn" data-testid="headroom-only-preempting">
            only by preempting
          </span>
        )}{" "}
        <span className="muted" data-testid="headroom-limited-by">
          limited by {headroom.limitedBy}
        </span>
      </p>
      <ul className="headroom-parts">
        <li data-testid="headroom-free">+{free} now</li>
        <li data-testid="headroom-preempt">
          +{preempt}
          {victims === "" ? " by preemption" : ` by preempting ${victims}`}
        </li>
        <li>
          quota:{" "}
          <span data-testid="headroom-quota">
            {headroom.quotaRemaining === null ? "no limit" : counted(headroom.quotaRemaining, "replica")}
          </span>
          {headroom.quotaRemaining !== null && " left"}
        </li>
      </ul>
    </div>
  );
}

import { counted, type HeadroomSummary } from "@llmgw/domain";
import { victimsText } from "./board";

/**
 * A model's headroom in the capacity card's words, which every screen that shows headroom uses
 * (the card, the Quotas page's table): the number an operator acts on first, then how.
 */
export type HeadroomWords = {
  /** "+3", or "No more" when none can start. */
  big: string;
  /** What follows the big number: "more can start", or "replicas can start" after "No more". */
  after: string;
  /** It fits, but only by stopping other models' replicas. */
  onlyByPreempting: boolean;
  /** "+2 now": on room that is free. */
  now: string;
  /** "+1 by preempting batch ×2, standard ×1", or "+0 by preemption" when nobody would be stopped. */
  preempting: string;
  /** The owner's quota left: "no limit", or "3 replicas" (left). */
  quota: string;
};

export function headroomWords(headroom: HeadroomSummary): HeadroomWords {
  const total = headroom.total ?? 0;
  const free = headroom.free ?? 0;
  const victims = victimsText(headroom.victimsByClass);
  return {
    big: total === 0 ? "No more" : `+${total}`,
    after: total === 0 ? "replicas can start" : "more can start",
    onlyByPreempting: total > 0 && free === 0,
    now: `+${free} now`,
    preempting: `+${headroom.byPreemption ?? 0}${victims === "" ? " by preemption" : ` by preempting ${victims}`}`,
    quota: headroom.quotaRemaining === null ? "no limit" : counted(headroom.quotaRemaining, "replica"),
  };
}

import type { Snapshot } from "../world/snapshot";

type SentFailed = { sent: number; failed: number };

/** Requests sent to and failed on each revision of a model (SPEC §11.4, §11.5): zero until counted. */
export function rolloutRequests(
  _snap: Snapshot,
  _model: string,
  _from: number,
  _to: number,
): { old: SentFailed; new: SentFailed } {
  return { old: { sent: 0, failed: 0 }, new: { sent: 0, failed: 0 } };
}

import { type Pull, pullEnded, TransferRate } from "@llmgw/domain";

// Each running pull's speed, from the `mirror.pull` events this page has seen (at most 4 a
// second): fed where the events arrive (live.ts), read where the pull is drawn, so drawing stays a
// pure function of what was seen.

const rates = new Map<string, TransferRate>();

/** Notes a pull's progress as an event brought it; an ended pull's samples are let go. */
export function notePullProgress(pull: Pull, atMs: number = Date.now()): void {
  if (pullEnded(pull.state)) {
    rates.delete(pull.id);
    return;
  }
  let rate = rates.get(pull.id);
  if (!rate) {
    rate = new TransferRate();
    rates.set(pull.id, rate);
  }
  rate.add(atMs, pull.bytesDone);
}

/** Bytes a second and seconds left, when enough progress has been seen to say. */
export function pullRateOf(pull: Pull): { speed: number | null; secondsLeft: number | null } {
  const rate = rates.get(pull.id);
  return { speed: rate?.bytesPerSecond() ?? null, secondsLeft: rate?.secondsLeft(pull.bytesTotal) ?? null };
}

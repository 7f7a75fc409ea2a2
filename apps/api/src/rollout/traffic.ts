import {
  type DemandRecord,
  type Model,
  newRevisionFailing,
  type Replica,
  replicaRevision,
  revisionCountKey,
  rolloutActive,
  type SentFailed,
} from "@llmgw/domain";

/**
 * Requests sent to each revision of a model during its rollout, and how many failed (an engine
 * 5xx, or no answer), summed over every process (SPEC §11.4, §11.5). Counted per rollout (its
 * `to`), so the next rollout starts from nothing.
 *
 * This process's own counts are live; the other processes' arrive as demand does (SPEC §9.1):
 * each records its counts of running rollouts in its demand row once a second, and the autoscaler
 * hands the others' rows here each second (`takeOthers`). So the views, worked out from a
 * snapshot alone, and the judge see every process's requests within a second.
 */
export class RevisionCounts {
  readonly #byRollout = new Map<string, Map<number, SentFailed>>();
  /**
   * What each other process last recorded, by process, then by `revisionCountKey`: a process whose
   * row is gone (stopped, killed, or no longer recording a finished rollout) keeps its last counts,
   * so the sums lose no more than its last second and never fall.
   */
  readonly #byProcess = new Map<string, Map<string, SentFailed>>();
  /** Their sum, by `revisionCountKey`. */
  #others = new Map<string, SentFailed>();
  #listeners: ((model: Model) => void)[] = [];

  /** One attempt on `replica` ended; only counted while `model`'s rollout runs. */
  sent(model: Model, replica: Replica, failed: boolean): void {
    const rollout = model.rollout;
    if (!rolloutActive(rollout)) return;
    const key = `${model.name}\u0000${rollout.to}`;
    let byRevision = this.#byRollout.get(key);
    if (!byRevision) {
      byRevision = new Map();
      this.#byRollout.set(key, byRevision);
    }
    const revision = replicaRevision(replica);
    const counts = byRevision.get(revision) ?? { sent: 0, failed: 0 };
    byRevision.set(revision, { sent: counts.sent + 1, failed: counts.failed + (failed ? 1 : 0) });
    for (const listener of this.#listeners) listener(model);
  }

  /** Called after each counted request: the judge looks "as each of them ends" (SPEC §11.4). */
  onCount(listener: (model: Model) => void): () => void {
    this.#listeners.push(listener);
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  /** This process's counts of the running rollouts among `models`, as its demand row keeps them. */
  record(models: Iterable<Model>): NonNullable<DemandRecord["revisions"]> {
    const out: Record<string, SentFailed> = {};
    for (const model of models) {
      const rollout = model.rollout;
      if (!rolloutActive(rollout)) continue;
      const byRevision = this.#byRollout.get(`${model.name}\u0000${rollout.to}`);
      for (const [revision, counts] of byRevision ?? []) {
        out[revisionCountKey(model.name, rollout.to, revision)] = counts;
      }
    }
    return out;
  }

  /**
   * The other processes' rows, read this second: each row's counts replace what its process last
   * recorded for those keys; what no row carries any more is kept as last heard (SPEC §11.4: a
   * request a process sent was sent, whether or not that process is still up). Without this a
   * process that died mid-rollout took its share out of the sums within 3 s (its row stale) while
   * another process still recorded the same rollout: the judge then read fewer requests (at worst
   * it waited for 10 more), and the numbers shown fell.
   */
  takeOthers(rows: readonly (Pick<DemandRecord, "revisions"> & { process: string })[]): void {
    for (const row of rows) {
      let last = this.#byProcess.get(row.process);
      if (!last) {
        last = new Map();
        this.#byProcess.set(row.process, last);
      }
      for (const [key, counts] of Object.entries(row.revisions ?? {})) last.set(key, counts);
    }
    const summed = new Map<string, SentFailed>();
    for (const last of this.#byProcess.values()) {
      for (const [key, counts] of last) {
        const sum = summed.get(key) ?? { sent: 0, failed: 0 };
        summed.set(key, { sent: sum.sent + counts.sent, failed: sum.failed + counts.failed });
      }
    }
    this.#others = summed;
  }

  of(model: string, from: number, to: number): { old: SentFailed; new: SentFailed } {
    const byRevision = this.#byRollout.get(`${model}\u0000${to}`);
    const both = (revision: number): SentFailed => {
      const own = byRevision?.get(revision) ?? { sent: 0, failed: 0 };
      const others = this.#others.get(revisionCountKey(model, to, revision)) ?? { sent: 0, failed: 0 };
      return { sent: own.sent + others.sent, failed: own.failed + others.failed };
    };
    return { old: both(from), new: both(to) };
  }
}

export const REVISION_COUNTS = new RevisionCounts();

/** Requests sent to and failed on each revision of a model's rollout. */
export function rolloutRequests(
  model: string,
  from: number,
  to: number,
): { old: SentFailed; new: SentFailed } {
  return REVISION_COUNTS.of(model, from, to);
}

/**
 * Whether `model`'s running rollout, over every process's requests, fails the judge's error-ratio
 * rule (`newRevisionFailing`): the judge should look now rather than at the loop's next turn.
 */
export function errorRatioOver(model: Model, maxErrorRatio: number): boolean {
  const rollout = model.rollout;
  if (!rolloutActive(rollout)) return false;
  return newRevisionFailing(REVISION_COUNTS.of(model.name, rollout.from, rollout.to), maxErrorRatio);
}

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
  /** The other processes' counts as last recorded, by `revisionCountKey`. */
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
   * The other processes' rows, read this second: their counts replace those last taken, except
   * a rollout's no row carries any more (a process stopped, or stopped recording once the rollout
   * ended): what was last heard is kept, so a finished rollout's numbers do not fall.
   */
  takeOthers(rows: readonly Pick<DemandRecord, "revisions">[]): void {
    const summed = new Map<string, SentFailed>();
    for (const row of rows) {
      for (const [key, counts] of Object.entries(row.revisions ?? {})) {
        const sum = summed.get(key) ?? { sent: 0, failed: 0 };
        summed.set(key, { sent: sum.sent + counts.sent, failed: sum.failed + counts.failed });
      }
    }
    for (const [key, counts] of this.#others) if (!summed.has(key)) summed.set(key, counts);
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

import { type Model, type Replica, replicaRevision, rolloutActive, type SentFailed } from "@llmgw/domain";

/**
 * Requests sent to each revision of a model during its rollout, and how many failed (an engine
 * 5xx, or no answer), as this process's gateway saw them (SPEC §11.4, §11.5). Counted per
 * rollout (its `to`), so the next rollout starts from nothing.
 *
 * One per process, as the gateway's traffic is: the views that show it are worked out from a
 * snapshot alone, and a snapshot is this process's picture too.
 */
export class RevisionCounts {
  readonly #byRollout = new Map<string, Map<number, SentFailed>>();
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

  of(model: string, from: number, to: number): { old: SentFailed; new: SentFailed } {
    const byRevision = this.#byRollout.get(`${model}\u0000${to}`);
    return {
      old: byRevision?.get(from) ?? { sent: 0, failed: 0 },
      new: byRevision?.get(to) ?? { sent: 0, failed: 0 },
    };
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

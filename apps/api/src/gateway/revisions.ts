import { type Model, type Replica, replicaRevision, revisionOf } from "@llmgw/domain";
import { rendezvousScore } from "./choose";

// SPEC §11.3: while a canary is held, the new revision takes its share of a model's requests and
// the old one the rest; a session key always lands on the same revision. Outside a canary, any
// ready replica of either revision takes requests (SPEC §11.2): the pool is left as it is.

/**
 * The replicas a request may go to, of the revision its canary share picks: by the session key
 * when there is one (the same key, the same revision), else by `turn` so that every 100 requests
 * without a key send exactly `canaryPercent` to the new revision. A side with no ready replica
 * leaves the pool whole: a request is never held back for a revision's sake.
 */
export function revisionPool<T extends { replica: Replica }>(
  model: Model,
  pool: T[],
  sessionKey: string | null,
  turn: number,
): T[] {
  const rollout = model.rollout;
  if (rollout?.state !== "canary" || rollout.canaryPercent === null || rollout.to !== revisionOf(model)) {
    return pool;
  }
  const toNew = takesCanary(rollout.canaryPercent, sessionKey, turn);
  const side = pool.filter((t) => (replicaRevision(t.replica) === rollout.to) === toNew);
  return side.length > 0 ? side : pool;
}

/** Whether this request goes to the canary: `percent` of keys, or of turns (evenly spread). */
export function takesCanary(percent: number, sessionKey: string | null, turn: number): boolean {
  if (sessionKey !== null) return rendezvousScore(sessionKey, "\u0000canary") % 100 < percent;
  return Math.floor(((turn % 100) + 1) * (percent / 100)) > Math.floor((turn % 100) * (percent / 100));
}

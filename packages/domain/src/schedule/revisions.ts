import { compareText } from "../compare";
import { replicaRevision, revisionOf } from "../rollout";
import type { Model, Replica } from "../schemas";

// SPEC §11.2: how the planner treats replicas of another revision than the model's during a
// rollout (or a rollback): surge, then drain; one at a time when there is no room.

/** Whether a replica runs another revision than its model's now. */
export const ofOtherRevision = (model: Model, r: Replica): boolean =>
  replicaRevision(r) !== revisionOf(model);

/**
 * Replicas of the model's revision it wants: all it wants, but one while a canary is held
 * (SPEC §11.3: one new replica, and the old revision keeps all of its).
 */
export function wantedOfRevision(model: Model, wanted: number): number {
  const held = model.rollout?.state === "canary" && model.rollout.to === revisionOf(model);
  return held ? Math.min(1, wanted) : wanted;
}

/**
 * How many replicas of other revisions still serve: what `wanted` asks beyond the ready replicas
 * of the model's revision; all of them (up to `wanted`) while a canary is held.
 */
export function otherKept(model: Model, wanted: number, readyOfRevision: number): number {
  if (wantedOfRevision(model, wanted) < wanted) return wanted;
  return Math.max(0, wanted - readyOfRevision);
}

/** Which old replica is drained first: those not serving yet (they hold no request), then newest. */
export function otherFirst(a: Replica, b: Replica): number {
  const ready = Number(a.state === "ready") - Number(b.state === "ready");
  return ready || compareText(b.startedAt, a.startedAt) || compareText(b.id, a.id);
}

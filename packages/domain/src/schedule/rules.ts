import { autoscaleFloor, isAutoscaled } from "../autoscale";
import { withinFloorAndMax } from "../bounds";
import { compareText } from "../compare";
import { isAwake } from "../runModes";
import type { Model, Replica } from "../schemas";

// The small rules the planner goes by: how many replicas a model wants, and in which order
// replicas go when only some of them do.

/**
 * How many replicas the scheduler wants of a model (SPEC §2.6): `min` for always; for on demand,
 * one while a wake is younger than the idle timeout (and `max` allows one); none when stopped.
 * An autoscaled model wants what its traffic asks (`autoscaled`, SPEC §9), never below that floor
 * nor above max.
 */
export function wantedReplicas(
  model: Pick<Model, "scaling">,
  wokenAt: number | undefined,
  now: number,
  autoscaled?: number,
): number {
  const { scaling } = model;
  // A stopped model (min 0, max 0) has floor 0 whether awake or not.
  const floor = autoscaleFloor(scaling, isAwake(scaling, wokenAt, now));
  if (floor === 0 || autoscaled === undefined || !isAutoscaled(scaling)) return floor;
  return withinFloorAndMax(autoscaled, floor, scaling.max);
}

/** Which extra replica goes first: pending ones (they run nothing), then the newest. */
export function extraFirst(a: Replica, b: Replica): number {
  const pending = Number(b.state === "pending") - Number(a.state === "pending");
  return pending || compareText(b.startedAt, a.startedAt) || compareText(b.id, a.id);
}

/** Which pending replica is placed first: the oldest. */
export function oldestFirst(a: Replica, b: Replica): number {
  return compareText(a.startedAt, b.startedAt) || compareText(a.id, b.id);
}

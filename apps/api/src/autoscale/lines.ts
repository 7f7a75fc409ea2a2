import {
  type AutoscaleView,
  autoscaleFloor,
  autoscaleTarget,
  compareText,
  desiredForDemand,
  desiredForReplicas,
  holdsResources,
  isAutoscaled,
  isAwake,
  type Model,
  quotaRemaining,
  quotaUsage,
  type Replica,
  replicaNeed,
  slotsOf,
  withinFloorAndMax,
} from "@llmgw/domain";
import type { StoredScale } from "@llmgw/store";
import type { Snapshot } from "../world";

/** One autoscaled model's numbers this second (SPEC §9.2): what the rule starts from. */
export interface ScaleLine {
  model: Model;
  demand: number;
  target: number;
  floor: number;
  desired: number;
}

/**
 * Every autoscaled model's line from the summed demand (SPEC §9.1–9.2). `wokenAt`: on-demand
 * wakes, which decide whether an on-demand model's floor is 1 (awake) or 0 (idle).
 */
export function scaleLines(
  snap: Snapshot,
  demand: ReadonlyMap<string, number>,
  wokenAt: ReadonlyMap<string, number>,
  now: number,
): ScaleLine[] {
  const lines: ScaleLine[] = [];
  for (const model of snap.models) {
    if (!isAutoscaled(model.scaling)) continue;
    const awake = isAwake(model.scaling, wokenAt.get(model.name), now);
    const asked = demand.get(model.name) ?? 0;
    // Requests waiting are a wake already (SPEC §7.2): the floor follows them before the wake lands.
    const floor = autoscaleFloor(model.scaling, awake || asked > 0);
    const target = autoscaleTarget(model);
    const { max } = model.scaling;
    // SPEC §9.2 and §2.6: each replica holds its own profile's slots unless targetInFlight says.
    const desired =
      model.profiles.length > 1 && (model.scaling.targetInFlight ?? null) === null
        ? desiredForReplicas(asked, keptSlots(snap, model), target, floor, max)
        : desiredForDemand(asked, target, floor, max);
    lines.push({ model, demand: asked, target, floor, desired });
  }
  return lines;
}

/**
 * What `GET /models` shows per autoscaled model (SPEC §9.5): the line, with wanted and holdUntil
 * as the leader last stored them (a model with no row wants its floor), and how many replicas the
 * owner's quota lets it run when that is fewer than wanted (the card says so, SPEC §9.4).
 */
export function autoscaleViews(
  snap: Snapshot,
  lines: readonly ScaleLine[],
  stored: ReadonlyMap<string, Omit<StoredScale, "model">>,
): Map<string, AutoscaleView> {
  const views = new Map<string, AutoscaleView>();
  for (const { model, demand, target, floor, desired } of lines) {
    const row = stored.get(model.name);
    const wanted = row ? withinFloorAndMax(row.wanted, floor, model.scaling.max) : floor;
    const holdUntil = row && row.holdUntil !== null && wanted > desired ? row.holdUntil : null;
    views.set(model.name, {
      demand,
      target,
      desired,
      wanted,
      holdUntil: holdUntil === null ? null : new Date(holdUntil).toISOString(),
      quotaAllows: quotaAllows(snap, model, wanted),
    });
  }
  return views;
}

/** The replicas the model keeps running (managed, not stopping or draining). */
function kept(snap: Snapshot, model: Model): Replica[] {
  return (snap.replicasByModel.get(model.name) ?? []).filter(
    (r) => !r.unmanaged && holdsResources(r) && r.state !== "stopping" && r.drainingSince === undefined,
  );
}

/**
 * The slots of the model's kept replicas in the order they are kept: placed ones oldest first,
 * pending ones last (§2.6 stops extra replicas pending first, then newest).
 */
function keptSlots(snap: Snapshot, model: Model): number[] {
  return kept(snap, model)
    .sort(
      (a, b) =>
        Number(a.state === "pending") - Number(b.state === "pending") ||
        compareText(a.startedAt, b.startedAt) ||
        compareText(a.id, b.id),
    )
    .map((r) => slotsOf(model, r));
}

function quotaAllows(snap: Snapshot, model: Model, wanted: number): number | null {
  const quota = snap.quotas.find((q) => q.owner === model.owner) ?? null;
  if (quota === null) return null;
  const remaining = quotaRemaining(quota, quotaUsage(model.owner, snap.index), replicaNeed(model));
  if (remaining === null) return null;
  const held = kept(snap, model).length;
  const allows = held + remaining;
  return allows < wanted ? allows : null;
}

/** Whether two views read the same (a card need not hear of it again). */
export function sameView(a: AutoscaleView | undefined, b: AutoscaleView | undefined): boolean {
  if (!a || !b) return a === b;
  return (
    a.demand === b.demand &&
    a.target === b.target &&
    a.desired === b.desired &&
    a.wanted === b.wanted &&
    a.holdUntil === b.holdUntil &&
    a.quotaAllows === b.quotaAllows
  );
}

import { classRank } from "./classes";
import { fitIn, preemptionVictims } from "./evictions";
import { DIMENSIONS, type FleetIndex, type HeldReplica, quotaUsage, replicaCounts } from "./fleetIndex";
import { emptyShort, fitsOf, nodeLines, type Shape, victimsByClass, whyNotOf } from "./headroomDetails";
import { replicaNeed } from "./need";
import { causeCode, type Placement, placementKey, placementOf, shortCause } from "./placement";
import { quotaRemaining } from "./quota";
import type { Headroom, HeadroomSummary, Model, Quota } from "./schemas";

/**
 * How many more replicas a model could get (SPEC §2.4): on free capacity, by preempting what
 * its class outranks, and within its owner's quota; with each node's count and, where it holds
 * none, why in numbers.
 */
export function headroom(model: Model, index: FleetIndex, quotas: readonly Quota[]): Headroom {
  const [room] = headroomAll([model], index, quotas);
  if (!room) throw new Error("headroomAll returned nothing for one model");
  return room;
}

/**
 * Headroom for many models over one index. Models asking the same of the same nodes (need,
 * class, engine, selector) are one shape, and all shapes of one need are counted in one pass
 * over the nodes.
 *
 * `nodes`, `victimsByClass` and `whyNot` are computed when first read (JSON.stringify and schema
 * parsing read them like any field) and kept: on a fleet of thousands of nodes they are far more work
 * than the counts, and most callers (metrics, totals, one card) read few of them. Treat results
 * as read-only: models of one shape share their `nodes` list.
 */
export function headroomAll(
  models: readonly Model[],
  index: FleetIndex,
  quotas: readonly Quota[],
): Headroom[] {
  const placements = new Map<string, Placement>();
  const shapes = new Map<string, Shape>();
  const byNeed = new Map<string, Shape[]>();
  const shapeOf = models.map((model) => {
    const need = replicaNeed(model);
    const rankSlot = rankSlotOf(index, model);
    const where = placementKey(model);
    const needKey = `${need.memoryGB},${need.cpuCores},${need.gpus}`;
    const key = `${needKey},${rankSlot}\u0000${where}`;
    let shape = shapes.get(key);
    if (!shape) {
      let placement = placements.get(where);
      if (!placement) {
        placement = placementOf(index, model);
        placements.set(where, placement);
      }
      shape = { need, rankSlot, placement, free: 0, fits: 0, short: emptyShort() };
      shapes.set(key, shape);
      const group = byNeed.get(needKey);
      if (group) group.push(shape);
      else byNeed.set(needKey, [shape]);
    }
    return shape;
  });
  for (const group of byNeed.values()) countShapes(index, group);
  const quotaOf = new Map(quotas.map((q) => [q.owner, q]));
  return models.map((model, i) => {
    const shape = shapeOf[i];
    if (!shape) throw new Error("every model has a shape");
    return headroomOf(index, model, shape, quotaOf.get(model.owner) ?? null);
  });
}

/**
 * The replicas to evict so the model gets `places` more replicas than fit on free capacity,
 * chosen as `victimsByClass` counts them (see `preemptionVictims`).
 */
export function victimsFor(model: Model, index: FleetIndex, places: number): HeldReplica[] {
  const shape: Shape = {
    need: replicaNeed(model),
    rankSlot: rankSlotOf(index, model),
    placement: placementOf(index, model),
    free: 0,
    fits: 0,
    short: emptyShort(),
  };
  const victims: HeldReplica[] = [];
  preemptionVictims(index, shape.need, shape.rankSlot, places, fitsOf(index, shape), (v) => victims.push(v));
  return victims;
}

/**
 * Sums every shape of one need in a single pass over the nodes: a node's fit on free capacity
 * is worked out once for all of them, its fit by preemption once per rank, and a node holding
 * nothing a rank outranks (always so for the lowest class) costs no division for that rank.
 */
function countShapes(index: FleetIndex, group: readonly Shape[]): void {
  const need = group[0]?.need;
  if (!need || (need.memoryGB === 0 && need.cpuCores === 0 && need.gpus === 0)) return;
  const rankSlots = [...new Set(group.map((s) => s.rankSlot))];
  const rankOf = Int32Array.from(group, (s) => rankSlots.indexOf(s.rankSlot));
  const blocked = group.map((s) => s.placement.blocked);
  const preempting = new Int32Array(rankSlots.length);
  const free = new Float64Array(group.length);
  const fits = new Float64Array(group.length);
  const ranks = index.ranks.length;
  const { free: room, below, belowCount } = index;
  const { memoryGB: needMemory, cpuCores: needCores, gpus: needGpus } = need;
  for (let slot = 0; slot < index.nodes.length; slot++) {
    let open = false;
    for (let g = 0; g < group.length && !open; g++) open = blocked[g]?.[slot] !== 1;
    if (!open) continue;
    const at = slot * DIMENSIONS;
    const memory = room[at] ?? 0;
    const cores = room[at + 1] ?? 0;
    const gpus = room[at + 2] ?? 0;
    const onFree = fitIn(memory, cores, gpus, needMemory, needCores, needGpus);
    for (let r = 0; r < rankSlots.length; r++) {
      const rankSlot = rankSlots[r] ?? 0;
      if ((belowCount[slot * ranks + rankSlot] ?? 0) === 0) {
        preempting[r] = onFree;
        continue;
      }
      const held = (slot * ranks + rankSlot) * DIMENSIONS;
      preempting[r] = fitIn(
        memory + (below[held] ?? 0),
        cores + (below[held + 1] ?? 0),
        gpus + (below[held + 2] ?? 0),
        needMemory,
        needCores,
        needGpus,
      );
    }
    // The node's shortfall is the need's, whatever the class: worked out once for the group.
    const short = onFree === 0 ? causeCode(shortCause(index, slot, need)) : 0;
    for (let g = 0; g < group.length; g++) {
      if (blocked[g]?.[slot] === 1) continue;
      free[g] = (free[g] ?? 0) + onFree;
      fits[g] = (fits[g] ?? 0) + (preempting[rankOf[g] ?? 0] ?? 0);
      if (short === 0) continue;
      const tally = group[g]?.short;
      if (!tally) continue;
      tally.counts[short] = (tally.counts[short] ?? 0) + 1;
      if (tally.first[short] === -1) tally.first[short] = slot;
    }
  }
  group.forEach((shape, g) => {
    shape.free = free[g] ?? 0;
    shape.fits = fits[g] ?? 0;
  });
}

function headroomOf(index: FleetIndex, model: Model, shape: Shape, quota: Quota | null): Headroom {
  const { need } = shape;
  const remaining = quotaRemaining(quota, quotaUsage(model.owner, index), need);
  const known = need.memoryGB > 0 || need.cpuCores > 0 || need.gpus > 0;
  const total = remaining === null ? shape.fits : Math.min(shape.fits, remaining);
  // Nothing asked for means any number "fits": a count would be a lie, so the card asks instead.
  const result: Headroom = {
    model: model.name,
    need: { ...need },
    ...replicaCounts(index, model.name),
    free: known ? shape.free : null,
    byPreemption: known ? shape.fits - shape.free : null,
    quotaRemaining: remaining,
    total: known ? total : null,
    limitedBy: !known ? "unknown-need" : remaining !== null && remaining < shape.fits ? "quota" : "capacity",
    victimsByClass: {},
    whyNot: [],
    nodes: [],
  };
  const places = known ? total - shape.free : 0;
  later(result, "nodes", () => {
    shape.nodes ??= nodeLines(index, shape);
    return shape.nodes;
  });
  later(result, "whyNot", () => {
    shape.whyNot ??= whyNotOf(index, shape);
    return shape.whyNot;
  });
  later(result, "victimsByClass", () => {
    if (places <= 0) return {};
    if (total < shape.fits) return victimsByClass(index, shape, places);
    shape.victimsWhenFull ??= victimsByClass(index, shape, places);
    return { ...shape.victimsWhenFull };
  });
  return result;
}

/**
 * A model's headroom as lists carry it (SPEC §2.4's size rule): every field but `nodes`, which
 * is never computed for it.
 */
export function headroomSummary(room: Headroom): HeadroomSummary {
  const { model, need, current, starting, elsewhere, free, byPreemption, quotaRemaining, total, limitedBy } =
    room;
  return {
    model,
    need,
    current,
    starting,
    elsewhere,
    free,
    byPreemption,
    quotaRemaining,
    total,
    limitedBy,
    victimsByClass: room.victimsByClass,
    whyNot: room.whyNot,
  };
}

/** Defines `key` as computed on first read and kept; enumerable, so JSON and spreads see it. */
function later<T extends object, K extends keyof T>(target: T, key: K, compute: () => T[K]): void {
  let value: { v: T[K] } | undefined;
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get() {
      value ??= { v: compute() };
      return value.v;
    },
  });
}

function rankSlotOf(index: FleetIndex, model: Model): number {
  // From the model as given, not as indexed: a card previewing a class change counts with the new class.
  return index.rankSlots.get(classRank(index.classes, model.class)) ?? 0;
}

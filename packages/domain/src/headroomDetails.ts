import { fit, type NodeFits, preemptionVictims } from "./evictions";
import { DIMENSIONS, type FleetIndex } from "./fleetIndex";
import { type Placement, shortOf, UNKNOWN_NEED } from "./placement";
import { type HeadroomNode, type Resources, WHY_NOT_CAUSES, type WhyNot } from "./schemas";

// What a headroom holds besides its counts (SPEC §2.4): every node's line, why nodes hold none,
// and which classes preemption would evict. Each is computed the first time it is read
// (headroom.ts), from the shape its model was counted in.

/** One need, class and placement, counted over the fleet. */
export interface Shape {
  need: Resources;
  rankSlot: number;
  placement: Placement;
  /** Σ fitFree over the nodes the placement allows. */
  free: number;
  /** Σ fitPreempt: free + by preemption. */
  fits: number;
  /** Eligible nodes holding none on free capacity, per cause code (as `Placement.tally`). */
  short: { counts: Int32Array; first: Int32Array };
  /** Per node, computed again when details are read: shapes keep only sums, so results hold little. */
  perNode?: NodeFits;
  nodes?: HeadroomNode[];
  whyNot?: WhyNot[];
  victimsWhenFull?: Record<string, number>;
}

/**
 * The nodes that hold none, grouped by lasting cause (the placement's, else the first dimension
 * short on free capacity), largest group first, each with one node's reason as its example.
 */
export function whyNotOf(index: FleetIndex, shape: Shape): WhyNot[] {
  const { placement, short, need } = shape;
  const groups: WhyNot[] = [];
  WHY_NOT_CAUSES.forEach((cause, i) => {
    const code = i + 1;
    const blocked = placement.tally.counts[code] ?? 0;
    const nodes = blocked + (short.counts[code] ?? 0);
    if (nodes === 0) return;
    const slot = blocked > 0 ? (placement.tally.first[code] ?? 0) : (short.first[code] ?? 0);
    const reason =
      blocked > 0
        ? (placement.reasons[slot] ?? cause)
        : shortOf(index, slot, need, preemptFitAt(index, shape, slot));
    groups.push({ cause, nodes, example: `${index.nodes[slot]?.node.name ?? "?"}: ${reason}` });
  });
  // Stable: equal groups keep the causes' order, lasting ones first.
  return groups.sort((a, b) => b.nodes - a.nodes);
}

function preemptFitAt(index: FleetIndex, shape: Shape, slot: number): number {
  const at = slot * DIMENSIONS;
  const held = (slot * index.ranks.length + shape.rankSlot) * DIMENSIONS;
  const { free, below } = index;
  return fit(
    (free[at] ?? 0) + (below[held] ?? 0),
    (free[at + 1] ?? 0) + (below[held + 1] ?? 0),
    (free[at + 2] ?? 0) + (below[held + 2] ?? 0),
    shape.need,
  );
}

export function emptyShort(): Shape["short"] {
  return {
    counts: new Int32Array(WHY_NOT_CAUSES.length + 1),
    first: new Int32Array(WHY_NOT_CAUSES.length + 1).fill(-1),
  };
}

/**
 * Counted in a Map: class names are the configuration's words, and one called `constructor` or
 * `toString` must not start from Object's built-in of that name (nor `__proto__` vanish).
 */
export function victimsByClass(index: FleetIndex, shape: Shape, places: number): Record<string, number> {
  const counts = new Map<string, number>();
  preemptionVictims(index, shape.need, shape.rankSlot, places, fitsOf(index, shape), (v) => {
    counts.set(v.className, (counts.get(v.className) ?? 0) + 1);
  });
  return Object.fromEntries(counts);
}

/** Each node's counts for one shape (0 where the placement rules it out), for lines and victims. */
export function fitsOf(index: FleetIndex, shape: Shape): NodeFits {
  if (shape.perNode) return shape.perNode;
  const { need, rankSlot, placement } = shape;
  const n = index.nodes.length;
  const ranks = index.ranks.length;
  const { free, below } = index;
  const fitFree = new Int32Array(n);
  const fitPreempt = new Int32Array(n);
  for (let slot = 0; slot < n; slot++) {
    if (placement.blocked[slot] === 1) continue;
    const at = slot * DIMENSIONS;
    const held = (slot * ranks + rankSlot) * DIMENSIONS;
    fitFree[slot] = fit(free[at] ?? 0, free[at + 1] ?? 0, free[at + 2] ?? 0, need);
    fitPreempt[slot] = fit(
      (free[at] ?? 0) + (below[held] ?? 0),
      (free[at + 1] ?? 0) + (below[held + 1] ?? 0),
      (free[at + 2] ?? 0) + (below[held + 2] ?? 0),
      need,
    );
  }
  shape.perNode = { fitFree, fitPreempt };
  return shape.perNode;
}

export function nodeLines(index: FleetIndex, shape: Shape): HeadroomNode[] {
  const { need, placement } = shape;
  const { fitFree, fitPreempt } = fitsOf(index, shape);
  const known = need.memoryGB > 0 || need.cpuCores > 0 || need.gpus > 0;
  return index.nodes.map((record, slot) => {
    const onFree = fitFree[slot] ?? 0;
    const all = fitPreempt[slot] ?? 0;
    const blocked = placement.reasons[slot] ?? null;
    const reason = blocked ?? (!known ? UNKNOWN_NEED : onFree > 0 ? null : shortOf(index, slot, need, all));
    return { node: record.node.name, fitFree: onFree, fitPreempt: all, reason };
  });
}

import { candidatesOf, DIMENSIONS, type FleetIndex, type HeldReplica } from "./fleetIndex";
import type { Resources } from "./schemas";

/** Per node slot: how many replicas fit on free capacity, and how many once outranked ones are gone. */
export interface NodeFits {
  fitFree: Int32Array;
  fitPreempt: Int32Array;
}

/** Called once per victim; the eviction walks allocate nothing, since headroom runs them per node per model. */
export type VictimVisitor = (victim: HeldReplica) => void;

/**
 * Which replicas make room for `places` more replicas of a model beyond what fits on free
 * capacity (SPEC §2.4 `victimsByClass`, and the victims `target` lists). Free places are always
 * taken first; this is only about the places that need preemption.
 *
 * On one node, to fit k replicas: evict its outranked replicas least important first (lowest
 * class, then newest) until k fit, then walk back from the most important of those and reprieve
 * every one whose eviction turns out not to be needed (Kubernetes' reprieve). What is left is
 * minimal: no victim could be spared.
 *
 * Across nodes, when fewer places are wanted than preemption could give, nodes are used
 * cheapest first: the lowest class their first place evicts, then the fewest victims, then
 * fleet order; each node is filled before the next is touched.
 */
export function preemptionVictims(
  index: FleetIndex,
  need: Resources,
  rankSlot: number,
  places: number,
  fits: NodeFits,
  visit: VictimVisitor,
): void {
  if (places <= 0) return;
  const open: { slot: number; more: number; top: number; count: number }[] = [];
  let available = 0;
  for (let slot = 0; slot < index.nodes.length; slot++) {
    const more = (fits.fitPreempt[slot] ?? 0) - (fits.fitFree[slot] ?? 0);
    if (more <= 0) continue;
    available += more;
    open.push({ slot, more, top: 0, count: 0 });
  }
  if (places < available) {
    for (const node of open) {
      let top = Number.NEGATIVE_INFINITY;
      let count = 0;
      evictOnNode(index, node.slot, need, rankSlot, (fits.fitFree[node.slot] ?? 0) + 1, (v) => {
        top = Math.max(top, v.rank);
        count += 1;
      });
      node.top = top;
      node.count = count;
    }
    open.sort((a, b) => a.top - b.top || a.count - b.count || a.slot - b.slot);
  }
  let left = places;
  for (const { slot, more } of open) {
    if (left <= 0) break;
    const take = Math.min(more, left);
    left -= take;
    evictOnNode(index, slot, need, rankSlot, (fits.fitFree[slot] ?? 0) + take, visit);
  }
}

/**
 * The replicas to evict on one node so that `k` replicas of `need` fit there, most important
 * first: none when they already fit, every outranked one when even that is not enough.
 */
export function evictOnNode(
  index: FleetIndex,
  slot: number,
  need: Resources,
  rankSlot: number,
  k: number,
  visit: VictimVisitor,
): void {
  const record = index.nodes[slot];
  if (!record) return;
  const candidates = candidatesOf(index, record);
  const at = slot * DIMENSIONS;
  // How much is missing per dimension; a dimension the model does not use is never missing.
  let memory = need.memoryGB > 0 ? k * need.memoryGB - (index.free[at] ?? 0) : Number.NEGATIVE_INFINITY;
  let cores = need.cpuCores > 0 ? k * need.cpuCores - (index.free[at + 1] ?? 0) : Number.NEGATIVE_INFINITY;
  let gpus = need.gpus > 0 ? k * need.gpus - (index.free[at + 2] ?? 0) : Number.NEGATIVE_INFINITY;
  const outranked = index.belowCount[slot * index.ranks.length + rankSlot] ?? 0;
  let taken = 0;
  for (; taken < outranked && (memory > 0 || cores > 0 || gpus > 0); taken++) {
    const held = candidates[taken];
    if (!held) break;
    memory -= held.replica.memoryGB;
    cores -= held.replica.cpuCores;
    gpus -= held.replica.gpus;
  }
  const enough = memory <= 0 && cores <= 0 && gpus <= 0;
  for (let i = taken - 1; i >= 0; i--) {
    const held = candidates[i];
    if (!held) continue;
    const { memoryGB, cpuCores, gpus: cards } = held.replica;
    if (enough && memory + memoryGB <= 0 && cores + cpuCores <= 0 && gpus + cards <= 0) {
      memory += memoryGB;
      cores += cpuCores;
      gpus += cards;
    } else {
      visit(held);
    }
  }
}

/**
 * The largest k with k·need within the room in every dimension the need uses (0 when the need
 * uses none).
 */
export function fit(memory: number, cores: number, gpus: number, need: Resources): number {
  return fitIn(memory, cores, gpus, need.memoryGB, need.cpuCores, need.gpus);
}

/**
 * `fit` over plain numbers, for the per-node passes: a node short in any dimension, the common
 * case in a packed fleet, costs no division.
 */
export function fitIn(
  memory: number,
  cores: number,
  gpus: number,
  needMemory: number,
  needCores: number,
  needGpus: number,
): number {
  let k = -1;
  if (needMemory > 0) {
    if (memory < needMemory) return 0;
    k = Math.floor(memory / needMemory);
  }
  if (needCores > 0) {
    if (cores < needCores) return 0;
    const byCores = Math.floor(cores / needCores);
    if (k < 0 || byCores < k) k = byCores;
  }
  if (needGpus > 0) {
    if (gpus < needGpus) return 0;
    const byGpus = Math.floor(gpus / needGpus);
    if (k < 0 || byGpus < k) k = byGpus;
  }
  return Math.max(k, 0);
}

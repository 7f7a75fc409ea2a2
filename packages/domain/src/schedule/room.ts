import { candidatesOf, DIMENSIONS, type FleetIndex, type HeldReplica, modelOf } from "../fleetIndex";
import { holdsResources } from "../holding";
import type { Replica, Resources } from "../schemas";

/** Where preemption makes room for one replica, and whom it evicts there (none: stopping replicas leave room). */
export interface Preemption {
  slot: number;
  victims: HeldReplica[];
}

/**
 * The fleet's resources as one scheduler run changes them. The index it starts from never changes
 * (SPEC §2.4's headroom reads the same one); this keeps, per node, three flat sums the planner
 * updates as it decides:
 *
 * - held: what every replica there holds, whatever its state (failed excepted): pending ones
 *   nominated there and stopping ones included. Free capacity is capacity less held.
 * - stopping: what its stopping replicas hold. They hold it until the agent reports them gone,
 *   so nothing may start in their place yet; but preemption may count on it, since it is leaving.
 * - reserved: what pending replicas nominated there (by preemption) hold: room promised, not
 *   running. What runs is held less reserved.
 *
 * and, per rank slot, what the catalogue's replicas below that rank that are not stopping hold
 * (starting, ready, or nominated): what a model of that rank may evict, as headroom counts it.
 * Replicas placed during the run are never added there: models are planned in descending rank,
 * so no later model outranks them.
 */
export class Room {
  readonly #held: Float64Array;
  readonly #stopping: Float64Array;
  readonly #reserved: Float64Array;
  readonly #below: Float64Array;
  /** Candidates stopped or evicted during this run. */
  readonly #gone = new Set<string>();
  /** Per node: how many of its candidates are gone (most nodes: none, and the walk skips the lookups). */
  readonly #goneOn: Int32Array;
  /** The eviction walk's scratch list. */
  readonly #taken: HeldReplica[] = [];
  readonly #ranks: number;
  /** How many times room was given back (a nominated replica released): what found none may find some. */
  releases = 0;

  constructor(readonly index: FleetIndex) {
    const n = index.nodes.length;
    const ranks = index.ranks.length;
    this.#ranks = ranks;
    this.#held = new Float64Array(n * DIMENSIONS);
    this.#stopping = new Float64Array(n * DIMENSIONS);
    this.#reserved = new Float64Array(n * DIMENSIONS);
    this.#below = new Float64Array(n * ranks * DIMENSIONS);
    this.#goneOn = new Int32Array(n);
    index.nodes.forEach((record, slot) => {
      const at = slot * DIMENSIONS;
      for (const r of record.replicas) {
        if (!holdsResources(r)) continue;
        add(this.#held, at, r, 1);
        const known = modelOf(index.models, r);
        if (r.state === "stopping") add(this.#stopping, at, r, 1);
        // Only the catalogue's pending replicas are nominations; an unmanaged one is the agent's, as it reports it.
        else if (r.state === "pending" && known) add(this.#reserved, at, r, 1);
        // Held at the replica's own slot for now; the prefix sum below makes it "below slot s".
        if (known && isCandidate(r)) add(this.#below, (slot * ranks + known.rankSlot) * DIMENSIONS, r, 1);
      }
      let m = 0;
      let c = 0;
      let g = 0;
      for (let s = 0; s < ranks; s++) {
        const cell = (slot * ranks + s) * DIMENSIONS;
        const [hm, hc, hg] = [this.#below[cell] ?? 0, this.#below[cell + 1] ?? 0, this.#below[cell + 2] ?? 0];
        this.#below[cell] = m;
        this.#below[cell + 1] = c;
        this.#below[cell + 2] = g;
        m += hm;
        c += hc;
        g += hg;
      }
    });
  }

  /** A replica placed on a node: running (`starting`) or nominated (`pending`). */
  hold(slot: number, r: Resources, nominated: boolean): void {
    add(this.#held, slot * DIMENSIONS, r, 1);
    if (nominated) add(this.#reserved, slot * DIMENSIONS, r, 1);
  }

  /**
   * A nominated replica taken off its node (dropped, or preempted by a higher class): it gives
   * back what it reserved, and no model may evict it any more.
   */
  release(slot: number, replica: Replica, rankSlot: number): void {
    this.releases += 1;
    add(this.#held, slot * DIMENSIONS, replica, -1);
    add(this.#reserved, slot * DIMENSIONS, replica, -1);
    this.#forget(slot, replica, rankSlot);
  }

  /** A nominated replica whose node now has room for it runs. */
  promote(slot: number, r: Resources): void {
    add(this.#reserved, slot * DIMENSIONS, r, -1);
  }

  /** A running replica marked stopping: it holds on, but no model may evict it again. */
  stop(slot: number, replica: Replica, rankSlot: number | undefined): void {
    add(this.#stopping, slot * DIMENSIONS, replica, 1);
    this.#forget(slot, replica, rankSlot);
  }

  /** Takes a replica out of the candidates: it is leaving, or has left. */
  #forget(slot: number, replica: Replica, rankSlot: number | undefined): void {
    if (rankSlot === undefined || this.#gone.has(replica.id)) return;
    this.#gone.add(replica.id);
    this.#goneOn[slot] = (this.#goneOn[slot] ?? 0) + 1;
    for (let s = rankSlot + 1; s < this.#ranks; s++)
      add(this.#below, (slot * this.#ranks + s) * DIMENSIONS, replica, -1);
  }

  /** Whether a nominated replica still fits on its node once the stopping replicas there are gone. */
  fitsOnceStopped(slot: number, need: Resources): boolean {
    const at = slot * DIMENSIONS;
    // It is held already: what is left once the stopping replicas go must not be negative.
    return fitsIn(
      this.#leaving(at) + need.memoryGB,
      this.#leaving(at + 1) + need.cpuCores,
      this.#leaving(at + 2) + need.gpus,
      need,
    );
  }

  /** Whether a nominated replica can start: what runs there and it fit, stopping replicas included. */
  fitsRunning(slot: number, need: Resources): boolean {
    const at = slot * DIMENSIONS;
    const m = (this.index.capacity[at] ?? 0) - (this.#held[at] ?? 0) + (this.#reserved[at] ?? 0);
    const c = (this.index.capacity[at + 1] ?? 0) - (this.#held[at + 1] ?? 0) + (this.#reserved[at + 1] ?? 0);
    const g = (this.index.capacity[at + 2] ?? 0) - (this.#held[at + 2] ?? 0) + (this.#reserved[at + 2] ?? 0);
    // It is both held and reserved: this is the room beside what runs there.
    return fitsIn(m, c, g, need);
  }

  /** Free capacity of a node in one dimension: capacity less everything held there. */
  free(slot: number, d: number): number {
    const at = slot * DIMENSIONS + d;
    return (this.index.capacity[at] ?? 0) - (this.#held[at] ?? 0);
  }

  /**
   * Binpacking on free capacity: of the nodes `blocked` allows that fit one more replica now, the
   * one left with the least free memory (then cores, then GPUs, then fleet order), so large holes
   * stay whole for large models. -1 when none fits.
   */
  bestFree(need: Resources, blocked: Uint8Array): number {
    const { capacity } = this.index;
    const held = this.#held;
    const { memoryGB: nm, cpuCores: nc, gpus: ng } = need;
    let best = -1;
    let bm = 0;
    let bc = 0;
    let bg = 0;
    for (let slot = 0; slot < blocked.length; slot++) {
      if (blocked[slot] === 1) continue;
      const at = slot * DIMENSIONS;
      const m = (capacity[at] ?? 0) - (held[at] ?? 0) - nm;
      if (nm > 0 && m < 0) continue;
      const c = (capacity[at + 1] ?? 0) - (held[at + 1] ?? 0) - nc;
      if (nc > 0 && c < 0) continue;
      const g = (capacity[at + 2] ?? 0) - (held[at + 2] ?? 0) - ng;
      if (ng > 0 && g < 0) continue;
      if (best < 0 || m < bm || (m === bm && (c < bc || (c === bc && g < bg)))) {
        best = slot;
        bm = m;
        bc = c;
        bg = g;
      }
    }
    return best;
  }

  /**
   * Preemption as Kubernetes does it, for one replica of `need` and rank slot `rankSlot`: on each
   * node `blocked` allows, the smallest set of strictly outranked catalogue replicas (running, or
   * nominated there) whose leaving makes room: evict least important first until it fits, then
   * reprieve the most important evictees that turn out not to be needed. The node chosen is the
   * one whose set has the lowest top class, then the fewest victims, then the first in fleet
   * order. Room that stopping replicas are already leaving counts: where that suffices no victim
   * is needed, and those nodes win (binpacking among them).
   *
   * The top class of a node's set is known from the sums below each rank (the walk stops inside
   * the lowest rank whose replicas, with all below them, make room, and that last victim is never
   * reprieved), so only the nodes tied on it are walked, and only until one victim is enough.
   */
  preempt(need: Resources, rankSlot: number, blocked: Uint8Array): Preemption | null {
    const ranks = this.#ranks;
    const below = this.#below;
    let bestTop = Number.POSITIVE_INFINITY;
    const tied: number[] = [];
    for (let slot = 0; slot < blocked.length; slot++) {
      if (blocked[slot] === 1) continue;
      const at = slot * DIMENSIONS;
      const m = this.#leaving(at);
      const c = this.#leaving(at + 1);
      const g = this.#leaving(at + 2);
      let top = -1;
      if (!fitsIn(m, c, g, need)) {
        top = Number.POSITIVE_INFINITY;
        for (let t = 0; t < rankSlot && t <= bestTop; t++) {
          const cell = (slot * ranks + t + 1) * DIMENSIONS;
          if (fitsIn(m + (below[cell] ?? 0), c + (below[cell + 1] ?? 0), g + (below[cell + 2] ?? 0), need)) {
            top = t;
            break;
          }
        }
      }
      if (top > bestTop || top === Number.POSITIVE_INFINITY) continue;
      if (top < bestTop) {
        bestTop = top;
        tied.length = 0;
      }
      tied.push(slot);
    }
    if (tied.length === 0) return null;
    if (bestTop < 0) {
      // Room that stopping replicas leave is enough somewhere: no victim, binpacking among those nodes.
      let slot = tied[0] ?? 0;
      for (const s of tied) if (this.#leaving(s * DIMENSIONS) < this.#leaving(slot * DIMENSIONS)) slot = s;
      return { slot, victims: [] };
    }
    // Fewest victims, ties to fleet order: the scan stops at the first node one victim is enough for.
    let slot = -1;
    let fewest = Number.POSITIVE_INFINITY;
    for (const s of tied) {
      const count = this.#victims(s, need, rankSlot, null);
      if (count >= fewest) continue;
      fewest = count;
      slot = s;
      if (count <= 1) break;
    }
    const victims: HeldReplica[] = [];
    this.#victims(slot, need, rankSlot, victims);
    return { slot, victims };
  }

  /**
   * The reprieved victim set on one node (see `preempt`): how many, and into `out` (most important
   * first) when given. Counting allocates nothing: it runs on every node tied for the top class.
   */
  #victims(slot: number, need: Resources, rankSlot: number, out: HeldReplica[] | null): number {
    const record = this.index.nodes[slot];
    if (!record) return 0;
    const at = slot * DIMENSIONS;
    // What is still missing per dimension; a dimension the need does not use is never missing.
    let m = need.memoryGB > 0 ? need.memoryGB - this.#leaving(at) : Number.NEGATIVE_INFINITY;
    let c = need.cpuCores > 0 ? need.cpuCores - this.#leaving(at + 1) : Number.NEGATIVE_INFINITY;
    let g = need.gpus > 0 ? need.gpus - this.#leaving(at + 2) : Number.NEGATIVE_INFINITY;
    const taken = this.#taken;
    taken.length = 0;
    const checkGone = (this.#goneOn[slot] ?? 0) > 0;
    for (const held of candidatesOf(this.index, record)) {
      if (m <= 0 && c <= 0 && g <= 0) break;
      if (held.rankSlot >= rankSlot) break;
      if (!isCandidate(held.replica) || (checkGone && this.#gone.has(held.replica.id))) continue;
      m -= held.replica.memoryGB;
      c -= held.replica.cpuCores;
      g -= held.replica.gpus;
      taken.push(held);
    }
    let count = 0;
    for (let i = taken.length - 1; i >= 0; i--) {
      const held = taken[i];
      if (!held) continue;
      const r = held.replica;
      if (m + r.memoryGB <= 0 && c + r.cpuCores <= 0 && g + r.gpus <= 0) {
        m += r.memoryGB;
        c += r.cpuCores;
        g += r.gpus;
      } else {
        count += 1;
        out?.push(held);
      }
    }
    return count;
  }

  /** Room in one dimension once the stopping replicas are gone. */
  #leaving(cell: number): number {
    return (this.index.capacity[cell] ?? 0) - (this.#held[cell] ?? 0) + (this.#stopping[cell] ?? 0);
  }
}

/** A replica running or on its way: starting or ready. */
export function isLive(replica: Pick<Replica, "state">): boolean {
  return replica.state === "starting" || replica.state === "ready";
}

/** A replica on a node that a higher class may preempt: running, or nominated there (pending). */
export function isCandidate(replica: Pick<Replica, "state">): boolean {
  return isLive(replica) || replica.state === "pending";
}

/** Whether one replica of `need` fits in the room, dimension by dimension (unused dimensions are no limit). */
export function fitsIn(memory: number, cores: number, gpus: number, need: Resources): boolean {
  return (
    (need.memoryGB <= 0 || memory >= need.memoryGB) &&
    (need.cpuCores <= 0 || cores >= need.cpuCores) &&
    (need.gpus <= 0 || gpus >= need.gpus)
  );
}

function add(sums: Float64Array, at: number, r: Resources, sign: 1 | -1): void {
  sums[at] = (sums[at] ?? 0) + sign * r.memoryGB;
  sums[at + 1] = (sums[at + 1] ?? 0) + sign * r.cpuCores;
  sums[at + 2] = (sums[at + 2] ?? 0) + sign * r.gpus;
}

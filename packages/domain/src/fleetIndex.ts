import { classRank } from "./classes";
import { compareText } from "./compare";
import { holdsResources } from "./holding";
import { emptyUsage, type QuotaAmounts } from "./quota";
import type { Class, Model, Node, Replica, Resources } from "./schemas";

/** A replica the catalogue knows, with the class it would be preempted as. */
export interface HeldReplica {
  replica: Replica;
  className: string;
  rank: number;
  /** Position of `rank` in `FleetIndex.ranks`. */
  rankSlot: number;
}

export interface IndexedModel {
  model: Model;
  rank: number;
  /** Position of `rank` in `FleetIndex.ranks`. */
  rankSlot: number;
  /** Position in `FleetIndex.current`. */
  slot: number;
}

export interface NodeRecord {
  node: Node;
  /** Every replica reported on the node, any state. */
  replicas: readonly Replica[];
  /**
   * The catalogue's replicas holding resources here, least important first; the ones a model of
   * rank slot s outranks are the first `belowCount[node × ranks + s]`. Built by `candidatesOf`
   * on first use: only eviction walks need them, and most nodes are never walked.
   */
  candidates?: readonly HeldReplica[];
}

/**
 * The fleet, indexed once so that headroom for every model is a pass over numbers. Resources
 * live in flat arrays, three numbers (memory, cores, GPUs) a node: the per-model pass touches
 * every node, and reading objects would make it many times slower.
 *
 * An index does not change once built (results computed from it read it later); `reindexNode`
 * makes the next one after a heartbeat. Rebuild with `indexFleet` when the catalogue, the
 * classes or placement change.
 */
export interface FleetIndex {
  readonly classes: readonly Class[];
  /** Every rank a model can have, ascending: the classes' and the fallback for unknown names. */
  readonly ranks: readonly number[];
  readonly rankSlots: ReadonlyMap<number, number>;
  readonly models: ReadonlyMap<string, IndexedModel>;
  readonly nodes: readonly NodeRecord[];
  readonly nodeSlots: ReadonlyMap<string, number>;
  /** [node × 3 + d]: reported capacity. */
  readonly capacity: Float64Array;
  /** [node × 3 + d]: capacity less what every replica there holds (negative when overcommitted). */
  readonly free: Float64Array;
  /** [(node × ranks + s) × 3 + d]: what the catalogue's replicas below rank slot s hold there. */
  readonly below: Float64Array;
  /** [node × ranks + s]: how many of the node's candidates rank below slot s. */
  readonly belowCount: Int32Array;
  /** [model slot]: the model's `ready` replicas on `ready` nodes: what "running" means everywhere. */
  readonly current: Int32Array;
  /** [model slot]: the model's `starting` replicas on `ready` nodes. */
  readonly starting: Int32Array;
  /** [model slot]: the model's starting or ready replicas on draining or down nodes. */
  readonly elsewhere: Int32Array;
  /** Owner → what its models' replicas hold, pending ones included. */
  readonly usageByOwner: ReadonlyMap<string, Readonly<QuotaAmounts>>;
  /** Replicas on no indexed node (pending, or on a node not reported yet), by id. */
  readonly offFleet: ReadonlyMap<string, Replica>;
}

export const DIMENSIONS = 3;

type Building = Omit<
  { -readonly [K in keyof FleetIndex]: FleetIndex[K] },
  "nodes" | "nodeSlots" | "usageByOwner"
> & {
  nodes: NodeRecord[];
  nodeSlots: Map<string, number>;
  usageByOwner: Map<string, QuotaAmounts>;
};

export function indexFleet(input: {
  nodes: readonly Node[];
  replicas: readonly Replica[];
  models: readonly Model[];
  classes: readonly Class[];
}): FleetIndex {
  const { classes } = input;
  // classRank(classes, "") is the rank an unknown class name falls back to.
  const ranks = [...new Set([...classes.map((c) => c.rank), classRank(classes, "")])].sort((a, b) => a - b);
  const rankSlots = new Map(ranks.map((rank, slot) => [rank, slot]));
  const models = new Map<string, IndexedModel>();
  for (const model of input.models) {
    const rank = classRank(classes, model.class);
    models.set(model.name, { model, rank, rankSlot: rankSlots.get(rank) ?? 0, slot: models.size });
  }
  const n = input.nodes.length;
  const offFleet = new Map<string, Replica>();
  const index: Building = {
    classes,
    ranks,
    rankSlots,
    models,
    nodes: [],
    nodeSlots: new Map(input.nodes.map((node, slot) => [node.name, slot])),
    capacity: new Float64Array(n * DIMENSIONS),
    free: new Float64Array(n * DIMENSIONS),
    below: new Float64Array(n * ranks.length * DIMENSIONS),
    belowCount: new Int32Array(n * ranks.length),
    current: new Int32Array(models.size),
    starting: new Int32Array(models.size),
    elsewhere: new Int32Array(models.size),
    usageByOwner: new Map(),
    offFleet,
  };
  // One pass over the replicas, each model looked up once and nothing allocated per replica:
  // at 100,000 replicas that is most of the cost.
  const onNode: Replica[][] = input.nodes.map(() => []);
  for (const replica of input.replicas) {
    const slot = replica.node === null ? undefined : index.nodeSlots.get(replica.node);
    const known = modelOf(models, replica);
    count(index, replica, slot === undefined ? undefined : input.nodes[slot], known, 1, true);
    const list = slot === undefined ? undefined : onNode[slot];
    if (slot === undefined || !list) {
      offFleet.set(replica.id, replica);
      continue;
    }
    list.push(replica);
    hold(index, slot, replica, known);
  }
  input.nodes.forEach((node, slot) => {
    finishNode(index, slot, node, onNode[slot] ?? []);
  });
  return index;
}

/**
 * The index after a heartbeat: the node's facts are `node` and its replicas exactly `replicas`
 * (a pending one listed here has been placed). Costs the node's replicas and a copy of the flat
 * arrays, not the fleet. A node not seen before is added.
 */
export function reindexNode(index: FleetIndex, node: Node, replicas: readonly Replica[]): FleetIndex {
  return reindexNodes(index, [{ node, replicas }]);
}

/**
 * `reindexNode` for several heartbeats at once, applied in order (a node listed twice ends as its
 * last listing says): the flat arrays are copied once for all of them, not once a node.
 */
export function reindexNodes(
  index: FleetIndex,
  changes: readonly { node: Node; replicas: readonly Replica[] }[],
): FleetIndex {
  const nodeSlots = new Map(index.nodeSlots);
  for (const { node } of changes) if (!nodeSlots.has(node.name)) nodeSlots.set(node.name, nodeSlots.size);
  const nodes = nodeSlots.size;
  const ranks = index.ranks.length;
  const next: Building = {
    ...index,
    nodes: index.nodes.slice(),
    nodeSlots,
    capacity: resizedFloats(index.capacity, nodes * DIMENSIONS),
    free: resizedFloats(index.free, nodes * DIMENSIONS),
    below: resizedFloats(index.below, nodes * ranks * DIMENSIONS),
    belowCount: resizedInts(index.belowCount, nodes * ranks),
    current: index.current.slice(),
    starting: index.starting.slice(),
    elsewhere: index.elsewhere.slice(),
    usageByOwner: new Map(index.usageByOwner),
  };
  const ranksCells = ranks * DIMENSIONS;
  for (const { node, replicas } of changes) {
    const slot = nodeSlots.get(node.name) ?? 0;
    const was = next.nodes[slot];
    for (const old of was?.replicas ?? []) count(next, old, was?.node, modelOf(index.models, old), -1);
    // Pending replicas placed here leave the off-fleet list; it is copied only then, as it can be long.
    const placedNow = replicas.filter((r) => next.offFleet.has(r.id));
    if (placedNow.length > 0) {
      const offFleet =
        next.offFleet === index.offFleet ? new Map(index.offFleet) : (next.offFleet as Map<string, Replica>);
      for (const replica of placedNow) {
        const pending = offFleet.get(replica.id);
        if (pending) count(next, pending, undefined, modelOf(index.models, pending), -1);
        offFleet.delete(replica.id);
      }
      next.offFleet = offFleet;
    }
    const here = replicas.map((r) => (r.node === node.name ? r : { ...r, node: node.name }));
    next.below.fill(0, slot * ranksCells, (slot + 1) * ranksCells);
    next.belowCount.fill(0, slot * ranks, (slot + 1) * ranks);
    for (const replica of here) {
      const known = modelOf(index.models, replica);
      count(next, replica, node, known, 1);
      hold(next, slot, replica, known);
    }
    finishNode(next, slot, node, here);
  }
  return next;
}

/** What an owner's models hold (SPEC §2.4): every replica not failed, pending ones included. */
export function quotaUsage(owner: string, index: FleetIndex): QuotaAmounts {
  const usage = index.usageByOwner.get(owner);
  return usage ? { ...usage } : emptyUsage();
}

/**
 * A model's replicas as every screen counts them (SPEC §2.4): `current` ("running") the `ready`
 * ones on `ready` nodes; `starting` the starting ones on ready nodes; `elsewhere` those starting
 * or ready on a draining or down node, which hold their share but serve nobody new.
 */
export function replicaCounts(
  index: FleetIndex,
  model: string,
): { current: number; starting: number; elsewhere: number } {
  const slot = index.models.get(model)?.slot;
  if (slot === undefined) return { current: 0, starting: 0, elsewhere: 0 };
  return {
    current: index.current[slot] ?? 0,
    starting: index.starting[slot] ?? 0,
    elsewhere: index.elsewhere[slot] ?? 0,
  };
}

/**
 * The catalogue model a replica counts for: none for an unmanaged one (a model the catalogue does
 * not know, or an agent's own replica the scheduler did not place, SPEC §4).
 */
export function modelOf<T>(
  models: ReadonlyMap<string, T>,
  replica: Pick<Replica, "model" | "unmanaged">,
): T | undefined {
  return replica.unmanaged ? undefined : models.get(replica.model);
}

/**
 * What a node has left for more replicas: its capacity less what every replica there holds
 * (negative when overcommitted). The one rule for a node's free room: the index, a node's bar and
 * a heartbeat's `node.changed` all take it from here.
 */
export function freeOn(node: Node, replicas: readonly Replica[]): Resources {
  // What is held first, capacity last: the order the index has always summed in, so fractional
  // amounts round the same wherever a node's free room is computed.
  let memoryGB = 0;
  let cpuCores = 0;
  let gpus = 0;
  for (const replica of replicas) {
    if (!holdsResources(replica)) continue;
    memoryGB -= replica.memoryGB;
    cpuCores -= replica.cpuCores;
    gpus -= replica.gpus;
  }
  return {
    memoryGB: memoryGB + node.memoryGB,
    cpuCores: cpuCores + node.cpuCount,
    gpus: gpus + node.gpuTotal,
  };
}

/** The node's candidates, least important first: lowest class, then newest (it has lost the least work), then id. */
export function candidatesOf(index: FleetIndex, record: NodeRecord): readonly HeldReplica[] {
  if (!record.candidates) {
    // Kept on the record: it depends only on the record and the catalogue, which an index and
    // the ones reindexed from it share.
    const held: HeldReplica[] = [];
    for (const replica of record.replicas) {
      const known = modelOf(index.models, replica);
      if (!known || !holdsResources(replica)) continue;
      held.push({ replica, className: known.model.class, rank: known.rank, rankSlot: known.rankSlot });
    }
    record.candidates = held.sort(leastImportantFirst);
  }
  return record.candidates;
}

/**
 * Adds (`sign` 1) or removes (-1) a replica's share of the per-model and per-owner totals. While
 * building, usage objects are this index's own; afterwards they are shared with the index before,
 * so a change makes a new one.
 */
function count(
  index: Building,
  replica: Replica,
  node: Node | undefined,
  known: IndexedModel | undefined,
  sign: 1 | -1,
  building = false,
): void {
  if (!known) return;
  const counts = node && replicaCount(index, node, replica);
  if (counts) counts[known.slot] = (counts[known.slot] ?? 0) + sign;
  if (!holdsResources(replica)) return;
  const owner = known.model.owner;
  const before = index.usageByOwner.get(owner);
  const usage = building && before ? before : { ...(before ?? emptyUsage()) };
  usage.memoryGB += sign * replica.memoryGB;
  usage.cpuCores += sign * replica.cpuCores;
  usage.gpus += sign * replica.gpus;
  usage.replicas += sign;
  if (usage !== before) index.usageByOwner.set(owner, usage);
}

/** Which of a model's counts a replica on `node` adds to, if any (see `replicaCounts`). */
function replicaCount(index: Building, node: Node, replica: Replica): Int32Array | null {
  if (replica.state !== "starting" && replica.state !== "ready") return null;
  if (node.state !== "ready") return index.elsewhere;
  return replica.state === "ready" ? index.current : index.starting;
}

/**
 * Adds what a catalogue model's replica holds at its rank slot (made into "below slot s" sums by
 * `finishNode`). Unmanaged replicas hold resources (`freeOn` counts them) but are never
 * preempted: nothing here may stop them.
 */
function hold(index: Building, slot: number, replica: Replica, known: IndexedModel | undefined): void {
  if (!known || !holdsResources(replica)) return;
  const ranks = index.ranks.length;
  const cell = (slot * ranks + known.rankSlot) * DIMENSIONS;
  index.below[cell] = (index.below[cell] ?? 0) + replica.memoryGB;
  index.below[cell + 1] = (index.below[cell + 1] ?? 0) + replica.cpuCores;
  index.below[cell + 2] = (index.below[cell + 2] ?? 0) + replica.gpus;
  index.belowCount[slot * ranks + known.rankSlot] =
    (index.belowCount[slot * ranks + known.rankSlot] ?? 0) + 1;
}

/** Completes a node once its replicas are held: capacity, free (`freeOn`), and the sums below each rank. */
function finishNode(index: Building, slot: number, node: Node, replicas: readonly Replica[]): void {
  index.nodes[slot] = { node, replicas };
  const at = slot * DIMENSIONS;
  index.capacity[at] = node.memoryGB;
  index.capacity[at + 1] = node.cpuCount;
  index.capacity[at + 2] = node.gpuTotal;
  const free = freeOn(node, replicas);
  index.free[at] = free.memoryGB;
  index.free[at + 1] = free.cpuCores;
  index.free[at + 2] = free.gpus;

  // From "held at slot s" to "held below slot s": an exclusive prefix sum over the ranks.
  const ranks = index.ranks.length;
  let heldMemory = 0;
  let heldCores = 0;
  let heldGpus = 0;
  let heldCount = 0;
  for (let s = 0; s < ranks; s++) {
    const cell = (slot * ranks + s) * DIMENSIONS;
    const memoryHere = index.below[cell] ?? 0;
    const coresHere = index.below[cell + 1] ?? 0;
    const gpusHere = index.below[cell + 2] ?? 0;
    const countHere = index.belowCount[slot * ranks + s] ?? 0;
    index.below[cell] = heldMemory;
    index.below[cell + 1] = heldCores;
    index.below[cell + 2] = heldGpus;
    index.belowCount[slot * ranks + s] = heldCount;
    heldMemory += memoryHere;
    heldCores += coresHere;
    heldGpus += gpusHere;
    heldCount += countHere;
  }
}

function leastImportantFirst(a: HeldReplica, b: HeldReplica): number {
  if (a.rank !== b.rank) return a.rank - b.rank;
  const started = compareText(b.replica.startedAt, a.replica.startedAt);
  return started !== 0 ? started : compareText(b.replica.id, a.replica.id);
}

function resizedFloats(array: Float64Array, length: number): Float64Array {
  const next = new Float64Array(length);
  next.set(array.subarray(0, Math.min(array.length, length)));
  return next;
}

function resizedInts(array: Int32Array, length: number): Int32Array {
  const next = new Int32Array(length);
  next.set(array.subarray(0, Math.min(array.length, length)));
  return next;
}

import {
  type AutoscaleView,
  type Class,
  type FleetIndex,
  type Headroom,
  type HeadroomSummary,
  headroom,
  headroomAll,
  headroomSummary,
  indexFleet,
  isAutoscaled,
  type Model,
  type ModelSummary,
  type ModelView,
  modeOf,
  type Node,
  type NodeView,
  nodeView,
  type Quota,
  quietAutoscale,
  type Replica,
  reindexNodes,
} from "@llmgw/domain";
import type { ReplicaWrite, Store } from "@llmgw/store";
import { Body } from "./body";

type Parts = {
  models: Model[];
  nodes: Node[];
  classes: Class[];
  quotas: Quota[];
  index: FleetIndex;
  replicasByNode: Map<string, Replica[]>;
  /** Replicas placed nowhere (pending). */
  unplaced: Replica[];
  replicasByModel: Map<string, Replica[]>;
  /** The store's list when the snapshot was read whole; rebuilt on demand after a patch. */
  replicas: Replica[] | null;
  /** How each autoscaled model follows its traffic (SPEC §9.5), as this process last worked it out. */
  autoscale: ReadonlyMap<string, AutoscaleView>;
  /** Headroom already worked out for this very fleet and catalogue (a change of autoscale only). */
  headroom?: Map<string, Headroom> | null;
};

const NO_AUTOSCALE: ReadonlyMap<string, AutoscaleView> = new Map();

/**
 * Everything a read needs, as one consistent picture, and what is derived from it: headroom for
 * every model (computed once, the first time a read asks) and the catalogue's JSON (serialised
 * once, however many clients ask). Immutable: a change makes a new snapshot.
 */
export class Snapshot {
  readonly models: Model[];
  readonly modelsByName: Map<string, Model>;
  readonly nodes: Node[];
  readonly nodesByName: Map<string, Node>;
  readonly replicasByNode: Map<string, Replica[]>;
  /** Every model's replicas, grouped once: a list of 500 cards must not scan the fleet per card. */
  readonly replicasByModel: Map<string, Replica[]>;
  readonly unplaced: Replica[];
  readonly classes: Class[];
  readonly quotas: Quota[];
  readonly index: FleetIndex;
  readonly autoscale: ReadonlyMap<string, AutoscaleView>;
  #replicas: Replica[] | null;
  #headroom: Map<string, Headroom> | null;
  #modelsBody: Body<ModelSummary[]> | null = null;
  #headroomBody: Body<HeadroomSummary[]> | null = null;

  constructor(parts: Parts) {
    this.models = parts.models;
    this.modelsByName = new Map(parts.models.map((m) => [m.name, m]));
    this.nodes = parts.nodes;
    this.nodesByName = new Map(parts.nodes.map((n) => [n.name, n]));
    this.replicasByNode = parts.replicasByNode;
    this.replicasByModel = parts.replicasByModel;
    this.unplaced = parts.unplaced;
    this.classes = parts.classes;
    this.quotas = parts.quotas;
    this.index = parts.index;
    this.autoscale = parts.autoscale;
    this.#replicas = parts.replicas;
    this.#headroom = parts.headroom ?? null;
  }

  static of(
    tables: {
      models: Model[];
      nodes: Node[];
      replicas: Replica[];
      classes: Class[];
      quotas: Quota[];
    },
    autoscale: ReadonlyMap<string, AutoscaleView> = NO_AUTOSCALE,
  ) {
    const { models, nodes, replicas, classes, quotas } = tables;
    return new Snapshot({
      autoscale,
      models,
      nodes,
      classes,
      quotas,
      index: indexFleet({ nodes, replicas, models, classes }),
      replicasByNode: groupBy(
        replicas.filter((r) => r.node !== null),
        (r) => r.node ?? "",
      ),
      unplaced: replicas.filter((r) => r.node === null),
      replicasByModel: groupBy(replicas, (r) => r.model),
      replicas,
    });
  }

  /** Every replica, ordered by id as the store lists them. */
  get replicas(): Replica[] {
    this.#replicas ??= [...this.unplaced, ...[...this.replicasByNode.values()].flat()].sort(byId);
    return this.#replicas;
  }

  /** Every model's headroom (SPEC §2.4), from one index, the first time something asks. */
  get headroom(): Map<string, Headroom> {
    this.#headroom ??= new Map(headroomAll(this.models, this.index, this.quotas).map((h) => [h.model, h]));
    return this.#headroom;
  }

  /**
   * `GET /models`' body: the catalogue as model summaries (no per-node lines, SPEC §2.4's size
   * rule), serialised once however many clients ask.
   */
  get modelsBody(): Body<ModelSummary[]> {
    this.#modelsBody ??= new Body(this.models.map((m) => modelSummary(this, m)));
    return this.#modelsBody;
  }

  /** `GET /headroom`'s body, likewise without per-node lines. */
  get headroomBody(): Body<HeadroomSummary[]> {
    this.#headroomBody ??= new Body(
      this.models.flatMap((m) => {
        const room = this.headroom.get(m.name);
        return room ? [headroomSummary(room)] : [];
      }),
    );
    return this.#headroomBody;
  }

  /**
   * This picture with one model added or replaced, as a create or an edit stored it. The index
   * is built again from the picture in memory (a model's class and need move what every other
   * model may preempt); nothing is read from the store.
   */
  withModel(model: Model): Snapshot {
    const at = this.models.findIndex((m) => m.name === model.name);
    // Two edits' continuations can run in either order: an older version never replaces a newer.
    if ((this.models[at]?.version ?? 0) > model.version) return this;
    const models = at < 0 ? [...this.models, model].sort(byModelName) : this.models.with(at, model);
    return this.#withModels(models);
  }

  /**
   * The same picture with the autoscaler's latest numbers (SPEC §9.5): the fleet and catalogue
   * stand, so their headroom stands too; only the catalogue's JSON is made again, when read.
   */
  withAutoscale(autoscale: ReadonlyMap<string, AutoscaleView>): Snapshot {
    return new Snapshot({
      models: this.models,
      nodes: this.nodes,
      classes: this.classes,
      quotas: this.quotas,
      index: this.index,
      replicasByNode: this.replicasByNode,
      unplaced: this.unplaced,
      replicasByModel: this.replicasByModel,
      replicas: this.#replicas,
      autoscale,
      headroom: this.#headroom,
    });
  }

  /** This picture without a model just removed (its replicas stay, unmanaged, as in the store). */
  withoutModel(name: string): Snapshot {
    return this.#withModels(this.models.filter((m) => m.name !== name));
  }

  /** The same fleet under another catalogue: the replicas' groupings stand, the index is rebuilt. */
  #withModels(models: Model[]): Snapshot {
    const { nodes, replicas, classes } = this;
    return new Snapshot({
      autoscale: this.autoscale,
      models,
      nodes,
      classes,
      quotas: this.quotas,
      index: indexFleet({ nodes, replicas, models, classes }),
      replicasByNode: this.replicasByNode,
      unplaced: this.unplaced,
      replicasByModel: this.replicasByModel,
      replicas,
    });
  }

  /**
   * This picture with replica rows written or removed as a scheduler run stored them (the last
   * write of an id wins). Replicas move between nodes and in and out of the pending list, so the
   * groupings and the index are built again, from the picture in memory: nothing is read.
   */
  withReplicas(writes: readonly ReplicaWrite[]): Snapshot {
    const replicas = new Map(this.replicas.map((r) => [r.id, r]));
    for (const { replica, removed } of writes) {
      if (removed) replicas.delete(replica.id);
      else replicas.set(replica.id, replica);
    }
    const { models, nodes, classes, quotas } = this;
    return Snapshot.of(
      { models, nodes, replicas: [...replicas.values()].sort(byId), classes, quotas },
      this.autoscale,
    );
  }

  /**
   * This picture with one node's row and replicas replaced, as an agent's heartbeat stored them:
   * the index is patched for that node alone (`reindexNode`), and headroom and the catalogue's
   * JSON are derived again only when read. Null when the change reaches beyond the node (a
   * replica that moved here from elsewhere): then the caller reads the store again.
   */
  withNode(node: Node, replicas: readonly Replica[]): Snapshot | null {
    return this.withNodes([{ node, replicas }]);
  }

  /**
   * `withNode` for several heartbeats committed together, in order: the fleet's lists and maps
   * are copied once for all of them, not once a node.
   */
  withNodes(changes: readonly { node: Node; replicas: readonly Replica[] }[]): Snapshot | null {
    const nodes = this.nodes.slice();
    /** Nodes new to the picture, by name (a node listed twice ends as its last listing says). */
    const added = new Map<string, Node>();
    const replicasByNode = new Map(this.replicasByNode);
    /** Where the changes so far put an id: its node, or null once its node no longer lists it. */
    const placed = new Map<string, string | null>();
    const models = new Set<string>();
    for (const { node, replicas } of changes) {
      const before = replicasByNode.get(node.name) ?? [];
      const here = new Set(before.map((r) => r.id));
      for (const r of replicas) {
        if (r.node !== node.name) return null;
        if (here.has(r.id)) continue;
        const held = placed.has(r.id)
          ? placed.get(r.id) !== null
          : (this.replicasByModel.get(r.model)?.some((o) => o.id === r.id) ?? false);
        if (held) return null;
      }
      for (const r of before) {
        placed.set(r.id, null);
        models.add(r.model);
      }
      for (const r of replicas) {
        placed.set(r.id, node.name);
        models.add(r.model);
      }
      const at = this.nodesByName.has(node.name) ? nodeIndex(nodes, node.name) : -1;
      if (at >= 0) nodes[at] = node;
      else added.set(node.name, node);
      if (replicas.length > 0) replicasByNode.set(node.name, [...replicas].sort(byId));
      else replicasByNode.delete(node.name);
    }
    // Each model the changes touch is grouped again once for all of them: what it has on other
    // nodes (and pending), then what the changed nodes list now.
    const changed = new Set(changes.map((c) => c.node.name));
    const fresh = new Map<string, Replica[]>();
    for (const name of changed)
      for (const r of replicasByNode.get(name) ?? []) {
        const list = fresh.get(r.model);
        if (list) list.push(r);
        else fresh.set(r.model, [r]);
      }
    const replicasByModel = new Map(this.replicasByModel);
    for (const model of models) {
      const rest = (this.replicasByModel.get(model) ?? []).filter(
        (r) => r.node === null || !changed.has(r.node),
      );
      const list = mergedById(rest, (fresh.get(model) ?? []).sort(byId));
      if (list.length > 0) replicasByModel.set(model, list);
      else replicasByModel.delete(model);
    }
    return new Snapshot({
      autoscale: this.autoscale,
      models: this.models,
      nodes: added.size > 0 ? mergedByName(nodes, [...added.values()].sort(byName)) : nodes,
      classes: this.classes,
      quotas: this.quotas,
      index: reindexNodes(this.index, changes),
      replicasByNode,
      unplaced: this.unplaced,
      replicasByModel,
      replicas: null,
    });
  }
}

/**
 * The catalogue, fleet and quotas as one consistent picture. Reads share one snapshot; every
 * write through this process invalidates it (or, for a heartbeat, patches it), so a client reads
 * its own writes, and so does every event another process sharing the database announces
 * (events/relay.ts).
 */
export class World {
  #current: Promise<Snapshot> | null = null;
  /** The snapshot `#current` resolved to, while it is still current. */
  #settled: Snapshot | null = null;
  /** Moves on every invalidation: a patch computed against an older picture is not applied. */
  #generation = 0;
  /** Live facts an agent reports every few seconds, kept in memory rather than written each time. */
  readonly lastSeen = new Map<string, string>();
  /** How many times the store has been read whole (a figure for tests and /metrics). */
  loads = 0;
  /** The autoscaler's latest numbers: every picture from now on carries them (`setAutoscale`). */
  #autoscale: ReadonlyMap<string, AutoscaleView> = NO_AUTOSCALE;

  constructor(private readonly store: Store) {}

  snapshot(): Promise<Snapshot> {
    if (this.#current) return this.#current;
    const generation = this.#generation;
    const loading = this.#load();
    this.#current = loading;
    loading.then(
      (snap) => {
        if (this.#current === loading && this.#generation === generation) this.#settled = snap;
      },
      () => {
        if (this.#current === loading) this.#current = null;
      },
    );
    return loading;
  }

  invalidate(): void {
    this.#generation++;
    this.#current = null;
    this.#settled = null;
  }

  /** Where the picture is now: a change committed after this can patch it if nothing else came between. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Applies one node's committed heartbeat to the current picture instead of reading the whole
   * fleet again (see `patch`).
   */
  patchNode(generation: number, node: Node, replicas: readonly Replica[]): void {
    this.patchNodes(generation, [{ node, replicas }]);
  }

  /** `patchNode` for several heartbeats committed together, in order. */
  patchNodes(generation: number, changes: readonly { node: Node; replicas: readonly Replica[] }[]): void {
    this.patch(generation, (snap) => snap.withNodes(changes));
  }

  /** Applies a scheduler run's committed writes (see `patch`). */
  patchReplicas(generation: number, writes: readonly ReplicaWrite[]): void {
    this.patch(generation, (snap) => snap.withReplicas(writes));
  }

  /** Applies a committed create or edit of one model (see `patch`); null reads the store again. */
  putModel(generation: number, model: Model | null): void {
    this.patch(generation, (snap) => (model ? snap.withModel(model) : null));
  }

  /**
   * The autoscaler's numbers of this second (SPEC §9.5), into the current picture and every one
   * read after: not a change of the store, so nothing is invalidated or read again.
   */
  setAutoscale(autoscale: ReadonlyMap<string, AutoscaleView>): void {
    this.#autoscale = autoscale;
    const current = this.#settled;
    if (!current) return;
    this.#settled = current.withAutoscale(autoscale);
    this.#current = Promise.resolve(this.#settled);
  }

  get autoscale(): ReadonlyMap<string, AutoscaleView> {
    return this.#autoscale;
  }

  /** Applies a committed removal of one model (see `patch`). */
  dropModel(generation: number, name: string): void {
    this.patch(generation, (snap) => snap.withoutModel(name));
  }

  /**
   * Moves the picture forward by a change just committed, instead of reading the store again:
   * only when no other write has invalidated it since `generation` (taken before the change
   * began) and it is loaded; otherwise, or when `change` gives null, the next read loads the store.
   */
  patch(generation: number, change: (snap: Snapshot) => Snapshot | null): void {
    const current = this.#settled;
    const next = current && generation === this.#generation ? change(current) : null;
    if (!next) {
      this.invalidate();
      return;
    }
    this.#settled = next;
    this.#current = Promise.resolve(next);
  }

  /** The five tables read in one read-only transaction, so the picture is of one moment. */
  async #load(): Promise<Snapshot> {
    this.loads++;
    const tables = await this.store.read(async (tx) => ({
      models: await tx.models.list(),
      nodes: await tx.nodes.list(),
      replicas: await tx.replicas.list(),
      classes: await tx.classes.list(),
      quotas: await tx.quotas.list(),
    }));
    return Snapshot.of(tables, this.#autoscale);
  }

  /** A node with the freshest lastSeen, which heartbeats keep in memory. */
  live(node: Node): Node {
    const seen = this.lastSeen.get(node.name);
    return seen && seen > node.lastSeen ? { ...node, lastSeen: seen } : node;
  }

  /** A node as the fleet lists it (the domain's `nodeView`), with its freshest lastSeen. */
  nodeView(snap: Snapshot, node: Node): NodeView {
    return nodeView(snap.index, this.live(node));
  }
}

/**
 * A model as the API shows one model, its headroom with every node's line; works for a model the
 * snapshot does not hold yet (a create, a patch).
 */
export function modelView(snap: Snapshot, model: Model): ModelView {
  const room = headroomOf(snap, model);
  return {
    ...model,
    mode: modeOf(model.scaling),
    // An agent's own replica of this model is not the model's (SPEC §4): the fleet lists it.
    replicas: (snap.replicasByModel.get(model.name) ?? []).filter((r) => !r.unmanaged),
    headroom: room,
    quota: { owner: model.owner, remaining: room.quotaRemaining },
    autoscale: autoscaleOf(snap, model),
  };
}

/** A model as lists and `model.changed` carry it: `modelView` without the per-node lines. */
export function modelSummary(snap: Snapshot, model: Model): ModelSummary {
  const room = headroomOf(snap, model);
  return {
    ...model,
    mode: modeOf(model.scaling),
    replicas: (snap.replicasByModel.get(model.name) ?? []).filter((r) => !r.unmanaged),
    headroom: headroomSummary(room),
    quota: { owner: model.owner, remaining: room.quotaRemaining },
    autoscale: autoscaleOf(snap, model),
  };
}

/**
 * The autoscaler's numbers for a model that is autoscaled as it stands now (an edit may have
 * ended it, or begun it a moment ago: then its quiet line until the next tick).
 */
function autoscaleOf(snap: Snapshot, model: Model): AutoscaleView | null {
  if (!isAutoscaled(model.scaling)) return null;
  return snap.autoscale.get(model.name) ?? quietAutoscale(model);
}

function headroomOf(snap: Snapshot, model: Model): Headroom {
  return snap.modelsByName.get(model.name) === model
    ? (snap.headroom.get(model.name) ?? headroom(model, snap.index, snap.quotas))
    : headroom(model, snap.index, snap.quotas);
}

// Code-point order, as the store lists them (`collate "C"`), so a patched list reads like a fresh one.
const byName = (a: Node, b: Node) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const byModelName = (a: Model, b: Model) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const byId = (a: Replica, b: Replica) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Where `name` is in `nodes` (sorted by name), by binary search, else by a scan; -1 when it is not. */
function nodeIndex(nodes: readonly Node[], name: string): number {
  let low = 0;
  let high = nodes.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const at = nodes[mid]?.name ?? "";
    if (at === name) return mid;
    if (at < name) low = mid + 1;
    else high = mid - 1;
  }
  return nodes.findIndex((n) => n.name === name);
}

/** Two sorted lists as one, in one pass: what a batch adds to a long list is not a sort of it. */
function merged<T>(a: readonly T[], b: readonly T[], order: (x: T, y: T) => number): T[] {
  if (b.length === 0) return a.slice();
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && order(x, y) <= 0)) {
      out.push(x as T);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}

const mergedByName = (a: readonly Node[], b: readonly Node[]) => merged(a, b, byName);
const mergedById = (a: readonly Replica[], b: readonly Replica[]) => merged(a, b, byId);

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

import {
  type Class,
  type FleetIndex,
  type Headroom,
  headroom,
  headroomAll,
  indexFleet,
  type Model,
  type ModelView,
  modeOf,
  type Node,
  type NodeView,
  nodeUsage,
  type Quota,
  type Replica,
} from "@llmgw/domain";
import type { Store } from "@llmgw/store";

/** Everything a read needs, loaded once and kept until a write invalidates it. */
export type Snapshot = {
  models: Model[];
  modelsByName: Map<string, Model>;
  nodes: Node[];
  nodesByName: Map<string, Node>;
  replicas: Replica[];
  replicasByNode: Map<string, Replica[]>;
  /** Every model's replicas, grouped once: a list of 500 cards must not scan the fleet per card. */
  replicasByModel: Map<string, Replica[]>;
  classes: Class[];
  quotas: Quota[];
  index: FleetIndex;
  headroom: Map<string, Headroom>;
};

/**
 * The catalogue, fleet and quotas as one consistent picture. Reads share one snapshot; every
 * write through this process invalidates it, so a client reads its own writes, and so does every
 * event another process sharing the database announces (events/relay.ts). Headroom for
 * every model is computed once per snapshot from one index (not per model, not per request).
 */
export class World {
  #current: Promise<Snapshot> | null = null;
  /** Live facts an agent reports every few seconds, kept in memory rather than written each time. */
  readonly lastSeen = new Map<string, string>();

  constructor(private readonly store: Store) {}

  snapshot(): Promise<Snapshot> {
    if (this.#current) return this.#current;
    const loading = this.#load();
    this.#current = loading;
    loading.catch(() => {
      if (this.#current === loading) this.#current = null;
    });
    return loading;
  }

  invalidate(): void {
    this.#current = null;
  }

  async #load(): Promise<Snapshot> {
    const [models, nodes, replicas, classes, quotas] = await Promise.all([
      this.store.models.list(),
      this.store.nodes.list(),
      this.store.replicas.list(),
      this.store.classes.list(),
      this.store.quotas.list(),
    ]);
    const index = indexFleet({ nodes, replicas, models, classes });
    const headrooms = headroomAll(models, index, quotas);
    const replicasByNode = groupBy(
      replicas.filter((r) => r.node !== null),
      (r) => r.node ?? "",
    );
    const replicasByModel = groupBy(replicas, (r) => r.model);
    return {
      models,
      modelsByName: new Map(models.map((m) => [m.name, m])),
      nodes,
      nodesByName: new Map(nodes.map((n) => [n.name, n])),
      replicas,
      replicasByNode,
      replicasByModel,
      classes,
      quotas,
      index,
      headroom: new Map(headrooms.map((h) => [h.model, h])),
    };
  }

  /** A node with the freshest lastSeen, which heartbeats keep in memory. */
  live(node: Node): Node {
    const seen = this.lastSeen.get(node.name);
    return seen && seen > node.lastSeen ? { ...node, lastSeen: seen } : node;
  }

  nodeView(snap: Snapshot, node: Node): NodeView {
    const usage = nodeUsage(snap.index, node.name) ?? {
      free: { memoryGB: node.memoryGB, cpuCores: node.cpuCount, gpus: node.gpuTotal },
      byClass: [],
    };
    return { ...this.live(node), usage };
  }
}

/** A model as the API shows it; works for a model the snapshot does not hold yet (a create, a patch). */
export function modelView(snap: Snapshot, model: Model): ModelView {
  const room =
    snap.modelsByName.get(model.name) === model
      ? (snap.headroom.get(model.name) ?? headroom(model, snap.index, snap.quotas))
      : headroom(model, snap.index, snap.quotas);
  return {
    ...model,
    mode: modeOf(model.scaling),
    replicas: snap.replicasByModel.get(model.name) ?? [],
    headroom: room,
    quota: { owner: model.owner, remaining: room.quotaRemaining },
  };
}

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

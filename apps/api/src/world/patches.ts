import {
  type AutoscaleView,
  indexFleet,
  type Model,
  type Node,
  type Replica,
  reindexNodes,
} from "@llmgw/domain";
import type { ReplicaWrite } from "@llmgw/store";
import { Snapshot } from "./snapshot";
import { byId, byModelName, byName, mergedById, mergedByName, nodeIndex } from "./sorted";

// The patch algebra: a snapshot moved forward by a change just committed, computed from the
// picture in memory, so the store is not read again. Each gives a new snapshot (the old one is
// never changed), or null where the change reaches beyond what it can patch (read the store).

/**
 * This picture with one model added or replaced, as a create or an edit stored it. The index
 * is built again from the picture in memory (a model's class and need move what every other
 * model may preempt); nothing is read from the store.
 */
export function withModel(snap: Snapshot, model: Model): Snapshot {
  const at = snap.models.findIndex((m) => m.name === model.name);
  // Two edits' continuations can run in either order: an older version never replaces a newer.
  if ((snap.models[at]?.version ?? 0) > model.version) return snap;
  const models = at < 0 ? [...snap.models, model].sort(byModelName) : snap.models.with(at, model);
  return withModels(snap, models);
}

/** This picture without a model just removed (its replicas stay, unmanaged, as in the store). */
export function withoutModel(snap: Snapshot, name: string): Snapshot {
  return withModels(
    snap,
    snap.models.filter((m) => m.name !== name),
  );
}

/** The same fleet under another catalogue: the replicas' groupings stand, the index is rebuilt. */
function withModels(snap: Snapshot, models: Model[]): Snapshot {
  const { nodes, replicas, classes } = snap;
  return new Snapshot({
    autoscale: snap.autoscale,
    models,
    nodes,
    classes,
    quotas: snap.quotas,
    index: indexFleet({ nodes, replicas, models, classes }),
    replicasByNode: snap.replicasByNode,
    unplaced: snap.unplaced,
    replicasByModel: snap.replicasByModel,
    replicas,
  });
}

/**
 * This picture with replica rows written or removed as a scheduler run stored them (the last
 * write of an id wins). Replicas move between nodes and in and out of the pending list, so the
 * groupings and the index are built again, from the picture in memory: nothing is read.
 */
export function withReplicas(snap: Snapshot, writes: readonly ReplicaWrite[]): Snapshot {
  const replicas = new Map(snap.replicas.map((r) => [r.id, r]));
  for (const { replica, removed } of writes) {
    if (removed) replicas.delete(replica.id);
    else replicas.set(replica.id, replica);
  }
  const { models, nodes, classes, quotas } = snap;
  return Snapshot.of(
    { models, nodes, replicas: [...replicas.values()].sort(byId), classes, quotas },
    snap.autoscale,
  );
}

/**
 * This picture with one node's row and replicas replaced, as an agent's heartbeat stored them:
 * the index is patched for that node alone (`reindexNode`), and headroom and the catalogue's
 * JSON are derived again only when read. Null when the change reaches beyond the node (a
 * replica that moved here from elsewhere): then the caller reads the store again.
 */
export function withNode(snap: Snapshot, node: Node, replicas: readonly Replica[]): Snapshot | null {
  return withNodes(snap, [{ node, replicas }]);
}

/**
 * `withNode` for several heartbeats committed together, in order: the fleet's lists and maps
 * are copied once for all of them, not once a node.
 */
export function withNodes(
  snap: Snapshot,
  changes: readonly { node: Node; replicas: readonly Replica[] }[],
): Snapshot | null {
  const nodes = snap.nodes.slice();
  /** Nodes new to the picture, by name (a node listed twice ends as its last listing says). */
  const added = new Map<string, Node>();
  const replicasByNode = new Map(snap.replicasByNode);
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
        : (snap.replicasByModel.get(r.model)?.some((o) => o.id === r.id) ?? false);
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
    const at = snap.nodesByName.has(node.name) ? nodeIndex(nodes, node.name) : -1;
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
  const replicasByModel = new Map(snap.replicasByModel);
  for (const model of models) {
    const rest = (snap.replicasByModel.get(model) ?? []).filter(
      (r) => r.node === null || !changed.has(r.node),
    );
    const list = mergedById(rest, (fresh.get(model) ?? []).sort(byId));
    if (list.length > 0) replicasByModel.set(model, list);
    else replicasByModel.delete(model);
  }
  return new Snapshot({
    autoscale: snap.autoscale,
    models: snap.models,
    nodes: added.size > 0 ? mergedByName(nodes, [...added.values()].sort(byName)) : nodes,
    classes: snap.classes,
    quotas: snap.quotas,
    index: reindexNodes(snap.index, changes),
    replicasByNode,
    unplaced: snap.unplaced,
    replicasByModel,
    replicas: null,
  });
}

/**
 * The same picture with the autoscaler's latest numbers (SPEC §9.5): the fleet and catalogue
 * stand, so their headroom stands too; only the catalogue's JSON is made again, when read.
 */
export function withAutoscale(snap: Snapshot, autoscale: ReadonlyMap<string, AutoscaleView>): Snapshot {
  return new Snapshot({
    autoscale,
    models: snap.models,
    nodes: snap.nodes,
    classes: snap.classes,
    quotas: snap.quotas,
    index: snap.index,
    replicasByNode: snap.replicasByNode,
    unplaced: snap.unplaced,
    replicasByModel: snap.replicasByModel,
    replicas: snap.replicasAsGiven,
    headroom: snap.headroomAsGiven,
  });
}

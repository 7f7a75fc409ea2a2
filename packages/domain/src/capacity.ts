import { DIMENSIONS, type FleetIndex, freeOn, modelOf } from "./fleetIndex";
import { holdsResources } from "./holding";
import type { Capacity, ClassUsage, Node, NodeView, Replica, Resources } from "./schemas";

/** The row for replicas of models the catalogue does not know. */
export const UNMANAGED = "unmanaged";

/**
 * Fleet totals (`GET /capacity`), all from the same replicas: `total`, `free` and `byClass` over
 * the nodes that can take replicas (ready), so `total = free + Σ byClass`; `elsewhere` what
 * replicas on draining or down nodes hold, which they keep until they stop but which is outside
 * `total`. Memory is rounded down to whole GB: what the fleet can promise.
 */
export function capacityByClass(index: FleetIndex): Capacity {
  const total = zero();
  const free = zero();
  const rows = classRows(index);
  const away = classRows(index);
  index.nodes.forEach((record, slot) => {
    const ready = record.node.state === "ready";
    for (const replica of record.replicas) addTo(ready ? rows : away, index, replica);
    if (!ready) return;
    const at = slot * DIMENSIONS;
    total.memoryGB += index.capacity[at] ?? 0;
    total.cpuCores += index.capacity[at + 1] ?? 0;
    total.gpus += index.capacity[at + 2] ?? 0;
    free.memoryGB += Math.max(0, index.free[at] ?? 0);
    free.cpuCores += Math.max(0, index.free[at + 1] ?? 0);
    free.gpus += Math.max(0, index.free[at + 2] ?? 0);
  });
  return {
    total: whole(total),
    free: whole(free),
    byClass: [...rows.values()],
    elsewhere: [...away.values()],
  };
}

/**
 * One node's bar (`NodeView.usage`), from its facts and its replicas: what is free there and what
 * each class holds, by the catalogue the index knows. The one way a node's usage is computed: for a
 * node in the index (`nodeUsage`) and for one a heartbeat is about to store alike.
 */
export function usageOn(
  index: Pick<FleetIndex, "classes" | "models">,
  node: Node,
  replicas: readonly Replica[],
): NodeView["usage"] {
  const rows = classRows(index);
  for (const replica of replicas) addTo(rows, index, replica);
  const free = freeOn(node, replicas);
  return {
    free: whole({
      memoryGB: Math.max(0, free.memoryGB),
      cpuCores: Math.max(0, free.cpuCores),
      gpus: Math.max(0, free.gpus),
    }),
    byClass: [...rows.values()],
  };
}

/** One indexed node's bar (`usageOn`). Null for a node the index does not hold. */
export function nodeUsage(index: FleetIndex, nodeName: string): NodeView["usage"] | null {
  const slot = index.nodeSlots.get(nodeName);
  const record = slot === undefined ? undefined : index.nodes[slot];
  return record ? usageOn(index, record.node, record.replicas) : null;
}

/**
 * A node as the fleet lists it (`GET /fleet/nodes`, `node.changed`): its facts and its bar. One
 * the index does not hold yet shows all its capacity free.
 */
export function nodeView(index: FleetIndex, node: Node): NodeView {
  const usage = nodeUsage(index, node.name) ?? {
    free: { memoryGB: node.memoryGB, cpuCores: node.cpuCount, gpus: node.gpuTotal },
    byClass: [],
  };
  return { ...node, usage };
}

/**
 * A row per configured class, highest first, then classes models name that the configuration
 * does not (as they come), then unmanaged: the same rows in the same order on every bar.
 */
/** Empty rows, one per class in `classRowNames` order. */
function classRows(index: Pick<FleetIndex, "classes" | "models">): Map<string, ClassUsage> {
  return new Map(classRowNames(index).map((name) => [name, row(name)]));
}

/** The catalogue the names were found for, and the names: one entry per index's catalogue. */
const rowNames = new WeakMap<object, { classes: unknown; names: readonly string[] }>();

/**
 * The classes a bar has rows for, highest rank first, then classes only a model names, then
 * `unmanaged`. Found once per catalogue: a heartbeat's bar and every node of `GET /fleet/nodes`
 * ask, and a scan of 2,000 models each time was most of their cost.
 */
function classRowNames(index: Pick<FleetIndex, "classes" | "models">): readonly string[] {
  const known = rowNames.get(index.models);
  if (known && known.classes === index.classes) return known.names;
  const names = new Set([...index.classes].sort((a, b) => b.rank - a.rank).map((c) => c.name));
  for (const { model } of index.models.values()) names.add(model.class);
  names.delete(UNMANAGED);
  names.add(UNMANAGED);
  const found = [...names];
  rowNames.set(index.models, { classes: index.classes, names: found });
  return found;
}

function addTo(rows: Map<string, ClassUsage>, index: Pick<FleetIndex, "models">, replica: Replica): void {
  if (!holdsResources(replica)) return;
  const name = modelOf(index.models, replica)?.model.class ?? UNMANAGED;
  const target = rows.get(name) ?? row(name);
  rows.set(name, target);
  target.replicas += 1;
  target.memoryGB += replica.memoryGB;
  target.cpuCores += replica.cpuCores;
  target.gpus += replica.gpus;
}

function row(name: string): ClassUsage {
  return { class: name, replicas: 0, memoryGB: 0, cpuCores: 0, gpus: 0 };
}

function zero(): Resources {
  return { memoryGB: 0, cpuCores: 0, gpus: 0 };
}

function whole(r: Resources): Resources {
  return { memoryGB: Math.floor(r.memoryGB), cpuCores: Math.floor(r.cpuCores), gpus: Math.floor(r.gpus) };
}

import {
  defaultProfile,
  type Heartbeat,
  type HeartbeatReply,
  heartbeatSchema,
  indexFleet,
  type Model,
  type Node,
  nodeUsage,
  type Replica,
} from "@llmgw/domain";
import type { Deps } from "../deps";
import { badRequest } from "../errors";
import type { Snapshot } from "../world";
import { type Announce, commit } from "./commit";

type ReportedReplica = ReturnType<typeof heartbeatSchema.parse>["replicas"][number];

/**
 * Live measurements move a little on every beat; they are written when they move by this much
 * (GB), so a fleet that heartbeats every few seconds does not write every few seconds.
 */
const SIGNIFICANT_GB = 0.5;

/**
 * An agent's report (SPEC §3): updates the node and its replicas, and answers with the replicas
 * this node should run. A beat that changes nothing writes nothing: it only moves lastSeen, which
 * is kept in memory (and written when the node next changes).
 */
export async function heartbeat({
  deps,
  report,
}: {
  deps: Deps;
  report: Heartbeat;
}): Promise<HeartbeatReply> {
  const { node: facts, replicas: reported } = heartbeatSchema.parse(report);
  // The store keeps one row per id, so a repeated id would differ from the report on every beat.
  const seen = new Set<string>();
  const twice = reported.findIndex((r) => seen.has(r.id) || !seen.add(r.id));
  if (twice >= 0)
    throw badRequest("a replica id is reported twice", { [`replicas.${twice}.id`]: "reported twice" });
  const now = deps.now().toISOString();
  deps.world.lastSeen.set(facts.name, now);
  const snap = await deps.world.snapshot();
  const before = snap.nodesByName.get(facts.name);
  const state = before?.state === "draining" ? "draining" : "ready";
  const node: Node = { ...facts, state, lastSeen: now };
  const previous = snap.replicasByNode.get(facts.name) ?? [];
  const replicas = reported.map((r) =>
    replicaOf(r, snap.modelsByName.get(r.model), previous, node.name, now),
  );

  const nodeChanged = !before || nodeMoved(before, node);
  const replicasChanged = !sameReplicas(previous, replicas);
  if (nodeChanged || replicasChanged) {
    await commit(deps, async (tx) => {
      const events: Announce[] = [];
      if (nodeChanged) await tx.nodes.upsert(node);
      if (replicasChanged) {
        const { upserted, removed } = await tx.replicas.replaceForNode(node.name, replicas);
        for (const replica of upserted) events.push({ type: "replica.changed", data: replica });
        for (const id of removed) {
          const gone = previous.find((r) => r.id === id);
          events.push({ type: "replica.changed", data: { ...gone, id, removed: true } });
        }
      }
      events.unshift({ type: "node.changed", data: nodeView(snap, node, replicas) });
      return { result: undefined, events };
    });
  }
  return { intervalSeconds: deps.config.heartbeatSeconds, replicas: desired(snap, replicas) };
}

function replicaOf(
  reported: ReportedReplica,
  model: Model | undefined,
  previous: readonly Replica[],
  node: string,
  now: string,
): Replica {
  const known = previous.find((r) => r.id === reported.id);
  const profile = model
    ? (model.profiles.find((p) => p.name === reported.profile) ?? defaultProfile(model))
    : undefined;
  // A catalogue model's replica holds what its profile asks unless the agent says otherwise; an
  // unmanaged one holds what it reports.
  const measured = reported.measuredMemoryGB ?? null;
  return {
    id: reported.id,
    model: reported.model,
    profile: reported.profile ?? profile?.name ?? "",
    node,
    state: reported.state,
    memoryGB: reported.memoryGB ?? profile?.minMemoryGB ?? 0,
    cpuCores: reported.cpuCores ?? profile?.cpuCores ?? 0,
    gpus: reported.gpus ?? profile?.gpus ?? 0,
    measuredMemoryGB: known && close(known.measuredMemoryGB, measured) ? known.measuredMemoryGB : measured,
    startedAt: known?.startedAt ?? now,
    reason: null,
  };
}

function close(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) < SIGNIFICANT_GB;
}

/** Whether the node's facts moved enough to write; lastSeen alone never does. */
function nodeMoved(before: Node, after: Node): boolean {
  const { lastSeen: _a, freeMemoryGB: freeBefore, ...restBefore } = before;
  const { lastSeen: _b, freeMemoryGB: freeAfter, ...restAfter } = after;
  return JSON.stringify(restBefore) !== JSON.stringify(restAfter) || !close(freeBefore, freeAfter);
}

function sameReplicas(a: readonly Replica[], b: readonly Replica[]): boolean {
  if (a.length !== b.length) return false;
  const byId = new Map(a.map((r) => [r.id, JSON.stringify(r)]));
  return b.every((r) => byId.get(r.id) === JSON.stringify(r));
}

function nodeView(snap: Snapshot, node: Node, replicas: readonly Replica[]) {
  const index = indexFleet({ nodes: [node], replicas, models: snap.models, classes: snap.classes });
  const usage = nodeUsage(index, node.name) ?? { free: { memoryGB: 0, cpuCores: 0, gpus: 0 }, byClass: [] };
  return { ...node, usage };
}

/** What this node should run: the catalogue's replicas on it that are not on their way out. */
function desired(snap: Snapshot, replicas: readonly Replica[]): HeartbeatReply["replicas"] {
  const wanted: HeartbeatReply["replicas"] = [];
  for (const replica of replicas) {
    const model = snap.modelsByName.get(replica.model);
    if (!model || replica.state === "stopping" || replica.state === "failed") continue;
    const profile = model.profiles.find((p) => p.name === replica.profile) ?? defaultProfile(model);
    if (!profile) continue;
    wanted.push({
      id: replica.id,
      model: model.name,
      profile: profile.name,
      engine: profile.engine,
      source: model.source,
      args: profile.args,
      memoryGB: replica.memoryGB,
      cpuCores: replica.cpuCores,
      gpus: replica.gpus,
    });
  }
  return wanted;
}

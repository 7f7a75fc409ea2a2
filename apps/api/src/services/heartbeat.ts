import {
  type HeartbeatReply,
  type heartbeatSchema,
  indexFleet,
  type Node,
  nodeUsage,
  type Replica,
} from "@llmgw/domain";
import type { z } from "zod";
import type { Deps } from "../deps";
import { badRequest } from "../errors";
import { close, desiredReplicas, mergeReport } from "../scheduler/agentReport";
import type { Snapshot } from "../world";
import { type Announce, commit } from "./commit";

/**
 * An agent's report (SPEC §3): updates the node and merges the report into its replicas (see
 * `mergeReport`: what the scheduler placed and the agent has not started yet is kept), and
 * answers with the replicas this node should run. A beat that changes nothing writes nothing: it
 * only moves lastSeen, which is kept in memory (and written when the node next changes).
 */
export async function heartbeat({
  deps,
  report,
}: {
  deps: Deps;
  /** Already checked by the route's `heartbeatSchema`: a beat is parsed once, not per layer. */
  report: z.output<typeof heartbeatSchema>;
}): Promise<HeartbeatReply> {
  const { node: facts, replicas: reported } = report;
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
  const merge = (stored: readonly Replica[]) =>
    mergeReport({
      node: node.name,
      reported,
      stored,
      // Rare (a replica new to the store, or moved): a scan only for ids not stored on this node.
      elsewhere: (id) => snap.replicas.find((r) => r.id === id),
      models: snap.modelsByName,
      now,
      // Three beats: an agent that has not started a placed replica by then never got it.
      graceMs: deps.config.scheduler ? 3 * deps.config.heartbeatSeconds * 1000 : 0,
    });
  const previous = snap.replicasByNode.get(facts.name) ?? [];
  const replicas = merge(previous);

  const nodeChanged = !before || nodeMoved(before, node);
  const replicasChanged = !sameReplicas(previous, replicas);
  if (nodeChanged || replicasChanged) {
    // Against this picture of the fleet the beat is a change to one node: patched in, not reloaded.
    const generation = deps.world.generation;
    await commit(
      deps,
      async (tx) => {
        const events: Announce[] = [];
        if (nodeChanged) await tx.nodes.upsert(node);
        let stored = previous;
        if (replicasChanged) {
          // Merged again with the rows as they are now: the scheduler may have placed one since the snapshot.
          const rows = await tx.replicas.listByNode(node.name);
          stored = merge(rows);
          const { upserted, removed } = await tx.replicas.replaceForNode(node.name, stored);
          for (const replica of upserted) events.push({ type: "replica.changed", data: replica });
          for (const id of removed) {
            const gone = rows.find((r) => r.id === id);
            events.push({ type: "replica.changed", data: { ...gone, id, removed: true } });
          }
        }
        events.unshift({ type: "node.changed", data: nodeView(snap, node, replicas) });
        return { result: stored, events };
      },
      (stored) => deps.world.patchNode(generation, node, stored),
    );
  }
  return {
    intervalSeconds: deps.config.heartbeatSeconds,
    replicas: desiredReplicas(snap.modelsByName, replicas),
  };
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

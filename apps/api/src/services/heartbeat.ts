import {
  desiredReplicas,
  type HeartbeatReply,
  type heartbeatSchema,
  keptVersions,
  loopsBackTo,
  mergeReport,
  type Node,
  nodeFactsMoved,
  type Replica,
  rolloutActive,
  usageOn,
} from "@llmgw/domain";
import type { z } from "zod";
import type { AgentBindings, NewBinding } from "../auth/agentNodes";
import type { KnownToken } from "../auth/tokenBook";
import type { Deps } from "../deps";
import { badRequest } from "../errors";
import { advanceRollouts } from "../rollout/advance";
import type { Snapshot } from "../world";
import { type BeatQueue, writeBeat } from "./heartbeatWrites";

/**
 * An agent's report (SPEC §3, §4): updates the node and merges the report into its replicas (see
 * `mergeReport`: what the scheduler placed and the agent has not started yet is kept), and
 * answers with the replicas this node should run. A beat that changes nothing writes nothing: it
 * only moves lastSeen, which is kept in memory (and written when the node next changes).
 *
 * The agent speaks for its own node only: a token bound to another node is refused (403), and so
 * is a replica id the store holds on another node (409). A refused beat writes and binds nothing.
 */
export async function heartbeat({
  deps,
  beats,
  input,
  by,
}: {
  deps: Deps;
  /** The app's heartbeats waiting to be committed together. */
  beats: BeatQueue;
  input: {
    /** Already checked by the route's `heartbeatSchema`: a beat is parsed once, not per layer. */
    report: z.output<typeof heartbeatSchema>;
    /** The port llmgw listens on: an endpoint there on this machine would send requests back into it. */
    ownPort: number;
  };
  /** The agent's token and the bindings it is checked against; null on a server without tokens. */
  by: { token: KnownToken; bindings: AgentBindings } | null;
}): Promise<HeartbeatReply> {
  const { report, ownPort } = input;
  const { node: facts, replicas: reported } = report;
  // The store keeps one row per id, so a repeated id would differ from the report on every beat.
  const seen = new Set<string>();
  const twice = reported.findIndex((r) => seen.has(r.id) || !seen.add(r.id));
  if (twice >= 0)
    throw badRequest("a replica id is reported twice", { [`replicas.${twice}.id`]: "reported twice" });
  const loop = reported.findIndex((r) => r.endpoint !== undefined && loopsBackTo(r.endpoint, ownPort));
  if (loop >= 0) {
    const why = `is llmgw's own port (${ownPort}) on this machine: requests sent there would come back into llmgw`;
    throw badRequest(`a replica's endpoint ${why}`, { [`replicas.${loop}.endpoint`]: why });
  }
  const binding: NewBinding | null = by ? await by.bindings.check(by.token, facts.name) : null;
  const now = deps.now().toISOString();
  const snap = await deps.world.snapshot();
  const before = snap.nodesByName.get(facts.name);
  const state = before?.state === "draining" ? "draining" : "ready";
  const node: Node = { ...facts, state, lastSeen: now };
  const merge = (stored: readonly Replica[]) =>
    mergeReport({
      node: node.name,
      reported,
      stored,
      models: snap.modelsByName,
      now,
      scheduled: deps.config.scheduler,
      // Three beats: an agent that has not started a placed replica by then never got it.
      graceMs: deps.config.scheduler ? 3 * deps.config.heartbeatSeconds * 1000 : 0,
    });
  const previous = snap.replicasByNode.get(facts.name) ?? [];
  const replicas = merge(previous);

  const nodeChanged = !before || nodeFactsMoved(before, node);
  // An id not on this node in the picture is new, or held elsewhere: either way the store decides.
  const replicasChanged = !sameReplicas(previous, replicas);
  if (nodeChanged || replicasChanged || binding) {
    // Against this picture of the fleet the beat is a change to one node: patched in, not reloaded.
    await writeBeat(deps, beats, {
      node,
      reported,
      previous,
      merge,
      nodeChanged,
      replicasChanged,
      binding: binding && by ? { binding, bindings: by.bindings } : null,
      usage: usageOn(snap.index, node, replicas),
    });
    if (binding) by?.bindings.confirm(binding);
    // SPEC §11.4: a new revision's replica that ends failed rolls its rollout back. The
    // scheduler's run judges that too, but an agent stops reporting a failed replica at its next
    // beat (the answer no longer asks for it), often before the next run: the failure went unseen,
    // and the new revision was placed again and again until a run fell between two beats (81 s
    // to roll back a missing source on the demo).
    if (deps.config.scheduler && failedInRollout(snap, previous, replicas))
      await advanceRollouts(deps, await deps.world.snapshot());
  }
  deps.world.lastSeen.set(facts.name, now);
  return {
    intervalSeconds: deps.config.heartbeatSeconds,
    replicas: desiredReplicas(snap.modelsByName, replicas, deps.mirror.find),
    keep: keptVersions(snap.models),
  };
}

/** Whether the beat turned a replica of a model with a running rollout failed. */
function failedInRollout(
  snap: Snapshot,
  previous: readonly Replica[],
  replicas: readonly Replica[],
): boolean {
  return replicas.some(
    (r) =>
      r.state === "failed" &&
      rolloutActive(snap.modelsByName.get(r.model)?.rollout) &&
      !previous.some((p) => p.id === r.id && p.state === "failed"),
  );
}

function sameReplicas(a: readonly Replica[], b: readonly Replica[]): boolean {
  if (a.length !== b.length) return false;
  const byId = new Map(a.map((r) => [r.id, JSON.stringify(r)]));
  return b.every((r) => byId.get(r.id) === JSON.stringify(r));
}

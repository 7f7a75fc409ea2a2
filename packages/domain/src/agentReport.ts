import type { z } from "zod";
import { modelOf } from "./fleetIndex";
import { defaultProfile } from "./need";
import { mirrorVersionOf, replicaFilesOf } from "./replicaFiles";
import { replicaRevision, specFor } from "./rollout";
import type {
  HeartbeatReply,
  heartbeatReplicaSchema,
  MirrorVersion,
  Model,
  Node,
  Replica,
  ReplicaFile,
} from "./schemas";

/** A replica as an agent's heartbeat reports it, once the schema has parsed it. */
export type ReportedReplica = z.output<typeof heartbeatReplicaSchema>;

/**
 * Live measurements move a little on every beat; they are written when they move by this much
 * (GB), so a fleet that heartbeats every few seconds does not write every few seconds.
 */
export const SIGNIFICANT_GB = 0.5;

/**
 * A node's replicas after its agent's report (SPEC §3, §4), merged with what the scheduler decided
 * rather than replaced by the report:
 *
 * - a reported replica takes the agent's state and measured memory; but one the scheduler marked
 *   `stopping` stays stopping while the agent still runs it, since the agent stops it on this reply,
 *   and one it marked draining (`drainingSince`) keeps that mark and its reason;
 * - a reported replica the store does not have on this node is the agent's own: while the
 *   scheduler runs it is unmanaged (it holds what it reports and never counts as its model's, even
 *   once a model of that name exists), so an agent cannot pass off a replica as the catalogue's;
 *   an id the store holds elsewhere never gets here (the heartbeat refuses it);
 * - a replica not reported is kept when it is the scheduler's and the agent has not had its turn:
 *   a catalogue replica `pending` on this node (nominated by preemption, not started yet), or one
 *   `starting` placed less than `graceMs` ago; every other one is gone (stopped as asked, or lost:
 *   the scheduler replaces it).
 */
export function mergeReport(input: {
  node: string;
  reported: readonly ReportedReplica[];
  /** The store's replicas on this node. */
  stored: readonly Replica[];
  models: ReadonlyMap<string, Model>;
  now: string;
  /**
   * The scheduler runs: replicas it did not place here are the agent's own (unmanaged). Without
   * it every reported replica of a catalogue model is that model's, where it is reported.
   */
  scheduled: boolean;
  /** How long a starting replica the agent has not reported is kept; 0 without a scheduler. */
  graceMs: number;
}): Replica[] {
  const { node, stored, models, now } = input;
  const byId = new Map(stored.map((r) => [r.id, r]));
  const merged = input.reported.map((reported) => {
    const known = byId.get(reported.id);
    const unmanaged = known ? known.unmanaged === true : input.scheduled;
    return fromReport(
      reported,
      known,
      unmanaged ? undefined : models.get(reported.model),
      unmanaged,
      node,
      now,
    );
  });
  const reported = new Set(input.reported.map((r) => r.id));
  const at = Date.parse(now);
  for (const r of stored) {
    if (reported.has(r.id) || !modelOf(models, r)) continue;
    const placedRecently = r.state === "starting" && at - Date.parse(r.startedAt) < input.graceMs;
    if (r.state === "pending" || placedRecently) merged.push(r);
  }
  return merged;
}

function fromReport(
  reported: ReportedReplica,
  known: Replica | undefined,
  /** The catalogue model it counts for; none for an unmanaged one. */
  model: Model | undefined,
  unmanaged: boolean,
  node: string,
  now: string,
): Replica {
  // An agent that leaves the profile out keeps the one the replica was placed with (SPEC §2.6).
  const named = reported.profile ?? known?.profile;
  const profile = model ? (model.profiles.find((p) => p.name === named) ?? defaultProfile(model)) : undefined;
  // Stopping, as the scheduler asked, until the agent reports it gone (or failed).
  const stopping = known?.state === "stopping" && reported.state !== "failed";
  // Draining (SPEC §9.3): the scheduler's mark and its reason stay until it stops the replica.
  const draining =
    known?.drainingSince !== undefined && reported.state !== "failed" ? known.drainingSince : undefined;
  const measured = reported.measuredMemoryGB ?? null;
  const revision = known?.revision ?? reported.revision;
  return {
    id: reported.id,
    model: reported.model,
    profile: named ?? profile?.name ?? "",
    node,
    state: stopping ? "stopping" : reported.state,
    // A catalogue model's replica holds what its profile asks unless the agent says otherwise; an
    // unmanaged one holds what it reports.
    memoryGB: reported.memoryGB ?? profile?.minMemoryGB ?? 0,
    cpuCores: reported.cpuCores ?? profile?.cpuCores ?? 0,
    gpus: reported.gpus ?? profile?.gpus ?? 0,
    measuredMemoryGB:
      known && sameReading(known.measuredMemoryGB, measured) ? known.measuredMemoryGB : measured,
    startedAt: known?.startedAt ?? now,
    reason: stopping || draining !== undefined ? (known?.reason ?? null) : (reported.reason ?? null),
    // Where requests go: only while the agent says the engine answers there, and never for an
    // unmanaged replica (never routed to). Progress only while it starts.
    endpoint:
      !unmanaged && reported.state === "ready" && !stopping
        ? (reported.endpoint?.replace(/\/$/, "") ?? null)
        : null,
    progress: reported.state === "starting" ? (reported.progress ?? null) : null,
    ...(unmanaged ? { unmanaged: true } : {}),
    ...(draining !== undefined ? { drainingSince: draining } : {}),
    // The revision the scheduler made it for; else the one its agent was asked to run (SPEC §11.1).
    ...(revision !== undefined ? { revision } : {}),
  };
}

/**
 * Whether two readings of a live measurement (GB) are the same for the store: they differ by less
 * than `SIGNIFICANT_GB`. Not reported (null) is the same only as not reported.
 */
export function sameReading(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) < SIGNIFICANT_GB;
}

/** Whether an agent's node facts moved enough to write: lastSeen alone never does, free memory by `SIGNIFICANT_GB`. */
export function nodeFactsMoved(before: Node, after: Node): boolean {
  const { lastSeen: _a, freeMemoryGB: freeBefore, ...restBefore } = before;
  const { lastSeen: _b, freeMemoryGB: freeAfter, ...restAfter } = after;
  return JSON.stringify(restBefore) !== JSON.stringify(restAfter) || !sameReading(freeBefore, freeAfter);
}

/**
 * What the node should run: the catalogue's replicas on it that are starting or ready. Pending
 * ones wait for room (their victims still run); stopping and failed ones are to be stopped.
 *
 * Each lists the files to download (SPEC §8.1) when its model's source names a version the mirror
 * has (`mirrored` looks one up, from memory: a beat may carry hundreds of replicas of a few
 * models); any other source lists none and the engine is given the source as it is.
 */
export function desiredReplicas(
  models: ReadonlyMap<string, Model>,
  replicas: readonly Replica[],
  mirrored: (model: string, version: string) => MirrorVersion | null,
): HeartbeatReply["replicas"] {
  const filesBySource = new Map<string, ReplicaFile[]>();
  const filesOf = (source: string): ReplicaFile[] => {
    let files = filesBySource.get(source);
    if (!files) {
      const key = mirrorVersionOf(source);
      const version = key && mirrored(key.model, key.version);
      files = version ? replicaFilesOf(version) : [];
      filesBySource.set(source, files);
    }
    return files;
  };
  const wanted: HeartbeatReply["replicas"] = [];
  for (const replica of replicas) {
    const model = modelOf(models, replica);
    if (!model || (replica.state !== "starting" && replica.state !== "ready")) continue;
    const profile = model.profiles.find((p) => p.name === replica.profile) ?? defaultProfile(model);
    if (!profile) continue;
    // An old revision's replica keeps running what that revision ran until it stops (SPEC §11.2).
    const revision = replicaRevision(replica);
    const spec = specFor(model, revision);
    const ran = spec.profiles.find((p) => p.name === profile.name);
    wanted.push({
      id: replica.id,
      model: model.name,
      profile: profile.name,
      revision,
      engine: ran?.engine ?? profile.engine,
      source: spec.source,
      args: ran?.args ?? profile.args,
      memoryGB: replica.memoryGB,
      cpuCores: replica.cpuCores,
      gpus: replica.gpus,
      files: filesOf(spec.source),
    });
  }
  return wanted;
}

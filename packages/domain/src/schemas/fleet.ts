import { z } from "zod";
import { MAX_CPU_CORES, MAX_GPUS, MAX_MEMORY_GB } from "../bounds";
import { text } from "../text";
import { count, engineName, isEndpoint, labelsSchema, MAX_ENGINES, nodeName, sha256Hex } from "./primitives";

// The fleet and its heartbeat (SPEC §1, §4, §8): nodes, replicas, what an agent reports and is told.
export const nodeStateSchema = z.enum(["ready", "draining", "down"]);
export const nodeFactsSchema = z.strictObject({
  name: nodeName,
  memoryGB: z.number().min(0).max(MAX_MEMORY_GB),
  cpuCount: count.max(MAX_CPU_CORES),
  gpuTotal: count.max(MAX_GPUS).default(0),
  gpuMemoryGB: z.number().min(0).max(MAX_MEMORY_GB).default(0),
  engines: z.array(engineName).max(MAX_ENGINES, `at most ${MAX_ENGINES} engines`).default([]),
  labels: labelsSchema.default({}),
  freeMemoryGB: z.number().min(0).max(MAX_MEMORY_GB).nullable().default(null),
  agentVersion: text().max(64).default(""),
});
export const nodeSchema = nodeFactsSchema.extend({
  state: nodeStateSchema,
  lastSeen: z.string(),
});
export type Node = z.infer<typeof nodeSchema>;

export const replicaStateSchema = z.enum(["pending", "starting", "ready", "stopping", "failed"]);
export const replicaProgressSchema = z.strictObject({
  phase: z.enum(["download", "load"]),
  bytesDone: count.max(Number.MAX_SAFE_INTEGER),
  bytesTotal: count.max(Number.MAX_SAFE_INTEGER).nullable(),
});
export type ReplicaProgress = z.infer<typeof replicaProgressSchema>;
export type ReplicaState = z.infer<typeof replicaStateSchema>;
export const replicaSchema = z.object({
  id: z.string().min(1).max(128),
  model: z.string(),
  profile: z.string(),
  /** null while pending: not placed on any node yet. */
  node: z.string().nullable(),
  state: replicaStateSchema,
  memoryGB: count,
  cpuCores: count,
  gpus: count,
  measuredMemoryGB: z.number().nullable(),
  startedAt: z.string(),
  /** Why a pending replica has no node, in numbers; or what its agent says stops or holds it. */
  reason: z.string().nullable().default(null),
  /** The engine's base URL as its agent reports it once the engine listens (SPEC §1): where requests go. */
  endpoint: z.string().nullable().default(null),
  /** While starting: how far its download or load is (SPEC §8.3). */
  progress: replicaProgressSchema.nullable().default(null),
  /**
   * An agent's own replica of a catalogue model, one the scheduler did not place on its node
   * (SPEC §4): it holds what it reports and is never the model's, never desired, never routed to.
   * Replicas of models the catalogue does not know are unmanaged without it.
   */
  unmanaged: z.boolean().optional(),
  /**
   * When a replica the scheduler is removing began draining (SPEC §9.3): it stays `ready` and its
   * agent keeps running it, but it gets no new request; it stops once its requests have ended.
   */
  drainingSince: z.string().optional(),
  /** SPEC §11.1: the model's revision it runs; absent in replicas stored before it (= 1). */
  revision: z.int().min(1).optional(),
});
export type Replica = z.infer<typeof replicaSchema>;

export const heartbeatReplicaSchema = z.strictObject({
  id: text().min(1).max(128),
  model: text().min(1).max(128),
  state: replicaStateSchema,
  profile: text().max(64).optional(),
  memoryGB: count.max(MAX_MEMORY_GB).optional(),
  cpuCores: count.max(MAX_CPU_CORES).optional(),
  gpus: count.max(MAX_GPUS).optional(),
  measuredMemoryGB: z.number().min(0).max(MAX_MEMORY_GB).optional(),
  /** Why the agent could not start it (a refused arg, a source it will not fetch), or what it waits on. */
  reason: text().max(500).optional(),
  /** Where the engine answers, once it listens: an http(s) base URL, no path (SPEC §1, §8.6). */
  endpoint: text()
    .max(2048)
    .refine(isEndpoint, "must be an http(s) base URL such as http://10.0.0.7:41234")
    .optional(),
  progress: replicaProgressSchema.optional(),
  /** The revision it was asked to run (SPEC §11.1), as its desired replica said. */
  revision: z.int().min(1).max(1_000_000_000).optional(),
});
/** SPEC §4: what one agent may report at once. */
export const MAX_HEARTBEAT_REPLICAS = 256;
export const heartbeatSchema = z.strictObject({
  node: nodeFactsSchema,
  replicas: z
    .array(heartbeatReplicaSchema)
    .max(MAX_HEARTBEAT_REPLICAS, `at most ${MAX_HEARTBEAT_REPLICAS} replicas per heartbeat`)
    .default([]),
});
export type Heartbeat = z.input<typeof heartbeatSchema>;

/**
 * One file a desired replica needs (SPEC §8.1): where to download it (`url`, a path on the server
 * the agent reports to, `/mirror/<model>/<version>/<file>`), where it goes in the version
 * (`path`), its size, and its SHA-256 once the mirror has computed it (null until then).
 */
export const replicaFileSchema = z.object({
  url: z.string(),
  path: z.string(),
  bytes: count,
  sha256: sha256Hex.nullable(),
});
export type ReplicaFile = z.infer<typeof replicaFileSchema>;

export const desiredReplicaSchema = z.object({
  id: z.string(),
  model: z.string(),
  profile: z.string(),
  revision: z.int().min(1).default(1),
  engine: z.string(),
  source: z.string(),
  args: z.array(z.string()),
  memoryGB: count,
  cpuCores: count,
  gpus: count,
  /** The version's files, for a source in the mirror; empty for any other source (SPEC §8.6). */
  files: z.array(replicaFileSchema).default([]),
});
/** A mirrored version by name: the agent's cache keeps it as `<model>/<version>/`. */
export const versionKeySchema = z.object({ model: z.string(), version: z.string() });
export const heartbeatReplySchema = z.object({
  intervalSeconds: z.int().positive(),
  replicas: z.array(desiredReplicaSchema),
  /**
   * Versions to keep cached though no replica on the node runs them (SPEC §11.2): a rollout's old
   * and new revisions until it is done, so an abort or a rollback starts nothing from scratch.
   */
  keep: z.array(versionKeySchema).optional(),
});
export type HeartbeatReply = z.infer<typeof heartbeatReplySchema>;

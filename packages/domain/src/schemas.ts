import { z } from "zod";
import { autoscaleViewSchema, MAX_REPLICAS } from "./autoscale";
import { storedBenchSchema } from "./bench";
import { text, textMap } from "./text";

// The contract of SPEC §1–§3. JSON field names here are what clients rely on. Every string a
// client sends is `text()`: no control characters, no lone surrogates (SPEC §4).

const count = z.int().min(0);
const limit = z.int().min(0).nullable();

export const NAME_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
export const modelName = text().regex(NAME_PATTERN, "1–64 characters of letters, digits and . _ : -");
/** SPEC §4: a node's name follows the model-name rule (it is a path segment and a table cell). */
export const nodeName = modelName;

/** What the agent finds on PATH and a profile names: a word, never a flag or a path. */
export const ENGINE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const engineName = text().regex(
  ENGINE_PATTERN,
  "1–64 characters of letters, digits and . _ -, starting with a letter or digit",
);
export const MAX_ENGINES = 32;

/** SPEC §4: labels (and the selectors that match them) are at most 64, keys 63 and values 255 characters. */
export const MAX_LABELS = 64;
export const labelKey = text().min(1, "must not be empty").max(63, "must be at most 63 characters");
export const labelValue = text().max(255, "must be at most 255 characters");
export const labelsSchema = textMap({ max: MAX_LABELS, what: "labels" }, labelKey, labelValue);

/** SPEC §4: where weights come from is a mirror URL or an http(s) URL, never a path or a flag. */
export const sourceSchema = text()
  .min(1, "a model needs a source")
  .max(2048)
  .refine(isHttpUrl, "must be an http(s) URL, such as the mirror's");

/** An engine's base URL: http(s), a host, and nothing after it but an optional "/". */
function isEndpoint(endpoint: string): boolean {
  if (!isHttpUrl(endpoint)) return false;
  const url = new URL(endpoint);
  return (
    (url.pathname === "/" || url.pathname === "") &&
    url.search === "" &&
    url.hash === "" &&
    url.username === "" &&
    url.password === ""
  );
}

function isHttpUrl(source: string): boolean {
  if (!/^https?:\/\//i.test(source)) return false;
  try {
    return new URL(source).hostname !== "";
  } catch {
    return false;
  }
}

/** An owner: a team or person, `""` for none. */
const ownerName = text().max(64);
const className = text().min(1).max(64);
/** Prose an operator writes: it may keep its line breaks. */
const description = text({ multiline: true });
export type Engine = "llamacpp" | "vllm";

export const classSchema = z.object({
  name: className,
  rank: z.int(),
  description: description.max(2000).default(""),
});
export type Class = z.infer<typeof classSchema>;

export const quotaLimitsSchema = z.strictObject({
  memoryGB: limit,
  cpuCores: limit,
  gpus: limit,
  replicas: limit,
});
export const quotaSchema = quotaLimitsSchema.extend({ owner: ownerName });
export type Quota = z.infer<typeof quotaSchema>;

export const resourcesSchema = z.object({ memoryGB: count, cpuCores: count, gpus: count });
export type Resources = z.infer<typeof resourcesSchema>;

export const quotaUsageSchema = quotaSchema.extend({ used: resourcesSchema.extend({ replicas: count }) });
export type QuotaUsage = z.infer<typeof quotaUsageSchema>;

export const profileSchema = z.object({
  name: text().min(1).max(64),
  engine: engineName,
  weight: z.number().min(0).default(1),
  priority: z.int().default(100),
  args: z.array(text().max(4096)).max(256, "at most 256 args").default([]),
  minMemoryGB: count.default(0),
  cpuCores: count.default(0),
  gpus: count.default(0),
  nodeSelector: textMap({ max: MAX_LABELS, what: "labels to select" }, labelKey, labelValue).default({}),
});
export type Profile = z.infer<typeof profileSchema>;

export const DEFAULT_IDLE_SECONDS = 900;
/** Requests a replica should hold before the autoscaler adds another (SPEC §9.2); null: its slots. */
export const targetInFlightSchema = z.int().min(1).max(100_000).nullable();
export const scalingSchema = z
  .object({
    min: count,
    max: count,
    idleTimeoutSeconds: count.default(DEFAULT_IDLE_SECONDS),
    // Absent in models stored before SPEC §9: the same as null.
    targetInFlight: targetInFlightSchema.optional(),
  })
  .refine((s) => s.min <= s.max, { message: "min must not exceed max", path: ["min"] });
export type Scaling = z.infer<typeof scalingSchema>;

export const modeSchema = z.enum(["always", "ondemand", "stopped"]);
export type Mode = z.infer<typeof modeSchema>;

export const routingProfileSchema = z.enum(["chat", "completion", "embedding"]);

/** What a client sends to add a model (`POST /models`, the wizard's submit, a declared model). */
export const modelInputSchema = z.strictObject({
  name: modelName,
  description: description.max(2000).default(""),
  source: sourceSchema,
  aliases: z.array(modelName).max(32).default([]),
  contextLength: z.int().positive(),
  maxOutput: z.int().min(0).nullable().default(null),
  routingProfile: routingProfileSchema.default("chat"),
  class: className.default("standard"),
  owner: ownerName.default(""),
  scaling: scalingSchema,
  profiles: z.array(profileSchema).min(1, "a model needs at least one profile"),
});
export type ModelInput = z.input<typeof modelInputSchema>;

export const originSchema = z.enum(["config", "runtime"]);
export const modelSchema = modelInputSchema.extend({
  origin: originSchema,
  version: z.int().min(1),
  updatedAt: z.string(),
  updatedBy: z.string(),
  /**
   * The last `llmgw ctl bench` (SPEC §5): a measurement, stored beside the model rather than in it,
   * so it neither bumps the version (the ETag of edits) nor reaches the audit as an edit.
   */
  bench: storedBenchSchema.nullable().optional(),
});
export type Model = z.infer<typeof modelSchema>;

export const nodeStateSchema = z.enum(["ready", "draining", "down"]);
export const nodeFactsSchema = z.strictObject({
  name: nodeName,
  memoryGB: z.number().min(0).max(1_000_000),
  cpuCount: count.max(100_000),
  gpuTotal: count.max(1024).default(0),
  gpuMemoryGB: z.number().min(0).max(1_000_000).default(0),
  engines: z.array(engineName).max(MAX_ENGINES, `at most ${MAX_ENGINES} engines`).default([]),
  labels: labelsSchema.default({}),
  freeMemoryGB: z.number().min(0).max(1_000_000).nullable().default(null),
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
});
export type Replica = z.infer<typeof replicaSchema>;

export const heartbeatReplicaSchema = z.strictObject({
  id: text().min(1).max(128),
  model: text().min(1).max(128),
  state: replicaStateSchema,
  profile: text().max(64).optional(),
  memoryGB: count.max(1_000_000).optional(),
  cpuCores: count.max(100_000).optional(),
  gpus: count.max(1024).optional(),
  measuredMemoryGB: z.number().min(0).max(1_000_000).optional(),
  /** Why the agent could not start it (a refused arg, a source it will not fetch), or what it waits on. */
  reason: text().max(500).optional(),
  /** Where the engine answers, once it listens: an http(s) base URL, no path (SPEC §1, §8.6). */
  endpoint: text()
    .max(2048)
    .refine(isEndpoint, "must be an http(s) base URL such as http://10.0.0.7:41234")
    .optional(),
  progress: replicaProgressSchema.optional(),
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

/** A SHA-256 digest as lowercase hex, as `sha256sum` prints it. */
const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

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
  engine: z.string(),
  source: z.string(),
  args: z.array(z.string()),
  memoryGB: count,
  cpuCores: count,
  gpus: count,
  /** The version's files, for a source in the mirror; empty for any other source (SPEC §8.6). */
  files: z.array(replicaFileSchema).default([]),
});
export const heartbeatReplySchema = z.object({
  intervalSeconds: z.int().positive(),
  replicas: z.array(desiredReplicaSchema),
});
export type HeartbeatReply = z.infer<typeof heartbeatReplySchema>;

export const mirrorFileSchema = z.object({
  file: z.string(),
  bytesDone: count,
  bytesTotal: count.nullable(),
  state: z.enum(["downloading", "complete", "failed"]),
  error: z.string().nullable(),
  /**
   * The complete file's SHA-256 (SPEC §8.1), which the mirror computes in the background: null
   * until then, and for a file still downloading. Defaults to null so versions stored before it
   * existed still parse.
   */
  sha256: sha256Hex.nullable().default(null),
});
export type MirrorFile = z.infer<typeof mirrorFileSchema>;

export const ggufSummarySchema = z.object({
  architecture: z.string().nullable(),
  blockCount: z.int().nullable(),
  headCount: z.int().nullable(),
  headCountKV: z.int().nullable(),
  embeddingLength: z.int().nullable(),
  keyLength: z.int().nullable(),
  valueLength: z.int().nullable(),
  contextLength: z.int().nullable(),
  fileType: z.int().nullable(),
  parameterCount: z.number().nullable(),
});
export type GgufSummary = z.infer<typeof ggufSummarySchema>;

export const ggufVerdictSchema = z.object({
  servable: z.boolean(),
  reason: z.string().nullable(),
  summary: ggufSummarySchema.nullable(),
});
export type GgufVerdict = z.infer<typeof ggufVerdictSchema>;

export const mirrorVersionSchema = z.object({
  model: z.string(),
  version: z.string(),
  files: z.array(mirrorFileSchema),
  gguf: ggufSummarySchema.nullable(),
});
export type MirrorVersion = z.infer<typeof mirrorVersionSchema>;

export const DEFAULT_CTX_POOL = 16384;
export const servePlanSchema = z.object({
  model: z.string(),
  version: z.string(),
  source: z.string(),
  engine: z.string(),
  profile: z.string(),
  files: count,
  minMemoryGB: count,
  cpuCores: count,
  memoryBasis: z.string(),
  ctxPool: z.int().positive(),
  refusal: z.string().nullable(),
  warning: z.string().nullable(),
  already: z.boolean(),
});
export type ServePlan = z.infer<typeof servePlanSchema>;

export const limitedBySchema = z.enum(["capacity", "quota", "unknown-need"]);
export const headroomNodeSchema = z.object({
  node: z.string(),
  fitFree: count,
  fitPreempt: count,
  reason: z.string().nullable(),
});
export type HeadroomNode = z.infer<typeof headroomNodeSchema>;
/** Why nodes hold none of a model, by lasting cause first (SPEC §2.4 `whyNot`). */
export const WHY_NOT_CAUSES = [
  "selector",
  "engine",
  "no memory reported",
  "no cores reported",
  "not ready",
  "short of memory",
  "short of cores",
  "short of GPUs",
] as const;
export const whyNotCauseSchema = z.enum(WHY_NOT_CAUSES);
export type WhyNotCause = z.infer<typeof whyNotCauseSchema>;
export const whyNotSchema = z.object({
  cause: whyNotCauseSchema,
  /** How many nodes hold none for this cause. */
  nodes: z.int().min(1),
  /** One of those nodes' reasons, in numbers, e.g. `n7: needs 24 GB, has 16 GB free of 64`. */
  example: z.string(),
});
export type WhyNot = z.infer<typeof whyNotSchema>;

/**
 * A model's headroom as lists carry it (SPEC §2.4's size rule): counts and `whyNot`, no per-node
 * list, so a list of many models grows with models + nodes, never models × nodes.
 */
export const headroomSummarySchema = z.object({
  model: z.string(),
  need: resourcesSchema,
  /** `ready` replicas on `ready` nodes: "running", on every screen. */
  current: count,
  /** `starting` replicas on `ready` nodes. */
  starting: count,
  /** Starting or ready replicas on draining or down nodes. */
  elsewhere: count,
  free: count.nullable(),
  byPreemption: count.nullable(),
  quotaRemaining: count.nullable(),
  total: count.nullable(),
  limitedBy: limitedBySchema,
  victimsByClass: z.record(z.string(), count),
  whyNot: z.array(whyNotSchema),
});
export type HeadroomSummary = z.infer<typeof headroomSummarySchema>;
/** One model's headroom with every node's count and reason (`GET /models/:name[/headroom]`). */
export const headroomSchema = headroomSummarySchema.extend({ nodes: z.array(headroomNodeSchema) });
export type Headroom = z.infer<typeof headroomSchema>;

/** SPEC §2.7: the card's fields, as a JSON merge patch. Unknown fields are refused. */
export const modelPatchSchema = z.strictObject({
  class: className.optional(),
  owner: ownerName.optional(),
  profile: text().min(1).max(64).optional(),
  memoryGB: count.max(1_000_000).optional(),
  cpuCores: count.max(100_000).optional(),
  gpus: count.max(1024).optional(),
  mode: modeSchema.optional(),
  replicas: count.max(10_000).optional(),
  idleTimeoutSeconds: count.optional(),
  /** SPEC §9.6: at least min, at most 64; after `mode` and `replicas` in the same patch. */
  maxReplicas: z.int().min(1).max(MAX_REPLICAS).optional(),
  targetInFlight: targetInFlightSchema.optional(),
  description: description.max(2000).optional(),
  aliases: z.array(modelName).max(32).optional(),
  contextLength: z.int().positive().optional(),
  maxOutput: z.int().min(0).nullable().optional(),
});
export type ModelPatch = z.infer<typeof modelPatchSchema>;

export const auditEntrySchema = z.object({
  id: z.number(),
  at: z.string(),
  by: z.string(),
  action: z.string(),
  target: z.string(),
  field: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
  /** The model's version after this change, for entries that changed a model. */
  version: z.int().min(1).optional(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const targetRequestSchema = z.strictObject({
  replicas: count.max(10_000),
  dryRun: z.boolean().default(false),
});
export const victimSchema = z.object({
  replica: z.string(),
  model: z.string(),
  node: z.string(),
  class: z.string(),
});
export const targetResultSchema = z.object({
  model: z.string(),
  replicas: count,
  outcome: z.enum(["fits", "preempts", "refused"]),
  victims: z.array(victimSchema),
  largestFit: count,
  applied: z.boolean(),
  message: z.string(),
});
export type TargetResult = z.infer<typeof targetResultSchema>;

export const errorCodeSchema = z.enum([
  "bad_request",
  "not_found",
  "conflict",
  "name_taken",
  "replica_conflict",
  "model_not_allowed",
  "quota_exceeded",
  "declared_in_config",
  "target_refused",
  "precondition_required",
  "precondition_failed",
  "bench_running",
  "unauthorized",
  "forbidden",
  "payload_too_large",
  "rate_limited",
  // 503 while a server that already holds its port is still starting (apps/api/src/listen.ts).
  "starting",
  "internal",
]);
export type ErrorCode = z.infer<typeof errorCodeSchema>;
export const apiErrorSchema = z.object({
  error: z.object({
    code: errorCodeSchema,
    message: z.string(),
    fields: z.record(z.string(), z.string()).optional(),
  }),
});
export type ApiError = z.infer<typeof apiErrorSchema>;

/**
 * The 409 of a target that is refused (not a dry run, SPEC §3): the error, beside the same fields a
 * dry run's answer has, so a caller reads the largest target that fits from either.
 */
export const targetRefusedBodySchema = apiErrorSchema.extend(targetResultSchema.shape);
export type TargetRefusedBody = z.infer<typeof targetRefusedBodySchema>;

/**
 * What one process's gateway did for a model in the last second (SPEC §7.7), sent every second
 * the model has traffic. Not stored: a browser that reconnects gets the next one.
 */
export const modelTrafficSchema = z.object({
  model: z.string(),
  requestsPerSecond: z.number().min(0),
  inFlight: count,
  queued: count,
  /** How long the longest-waiting queued request has waited, in seconds (null when none waits). */
  waitingSeconds: z.number().min(0).nullable(),
  /** True while the model has no ready replica and requests wait for one (a wake or a restart). */
  waking: z.boolean(),
  firstByteP50Ms: z.number().min(0).nullable(),
  tokensPerSecond: z.number().min(0),
});
export type ModelTraffic = z.infer<typeof modelTrafficSchema>;

/** Resources held per class: one row per class, plus "unmanaged" for replicas of unknown models. */
export const classUsageSchema = resourcesSchema.extend({ class: z.string(), replicas: count });
export type ClassUsage = z.infer<typeof classUsageSchema>;

export const capacitySchema = z.object({
  total: resourcesSchema,
  free: resourcesSchema,
  /** What replicas on `ready` nodes hold, per class: `total = free + Σ byClass` (unless over-committed). */
  byClass: z.array(classUsageSchema),
  /** The same sums for replicas on draining or down nodes, which hold their share outside `total`. */
  elsewhere: z.array(classUsageSchema),
});
export type Capacity = z.infer<typeof capacitySchema>;

export const nodeViewSchema = nodeSchema.extend({
  usage: z.object({ free: resourcesSchema, byClass: z.array(classUsageSchema) }),
});
export type NodeView = z.infer<typeof nodeViewSchema>;

/**
 * A catalogue entry as lists return it (`GET /models`, `model.changed`): with its replicas, its
 * headroom without per-node lines, and its quota line.
 */
export const modelSummarySchema = modelSchema.extend({
  mode: modeSchema,
  replicas: z.array(replicaSchema),
  headroom: headroomSummarySchema,
  quota: z.object({ owner: z.string(), remaining: count.nullable() }),
  /** How its replicas follow its traffic (SPEC §9.5); null for a model that is not autoscaled. */
  autoscale: autoscaleViewSchema.nullable(),
});
export type ModelSummary = z.infer<typeof modelSummarySchema>;
/** One catalogue entry (`GET /models/:name`, a create's or an edit's answer): headroom per node too. */
export const modelViewSchema = modelSummarySchema.extend({ headroom: headroomSchema });
export type ModelView = z.infer<typeof modelViewSchema>;

/** A mirrored version as `GET /mirror` lists it: with the serve plan the wizard starts from. */
export const mirrorEntrySchema = mirrorVersionSchema.extend({ plan: servePlanSchema });
export type MirrorEntry = z.infer<typeof mirrorEntrySchema>;

/** The 412 body of a stale PATCH: the model as it is now, and the audit entries since the client's version. */
export const conflictBodySchema = apiErrorSchema.extend({
  current: modelViewSchema,
  changedSince: z.array(auditEntrySchema),
});
export type ConflictBody = z.infer<typeof conflictBodySchema>;

import { z } from "zod";
import { autoscaleViewSchema } from "../autoscale";
import { auditEntrySchema, modelSchema, modeSchema, targetResultSchema } from "./catalogue";
import { replicaSchema } from "./fleet";
import { headroomSchema, headroomSummarySchema } from "./headroom";
import { mirrorVersionSchema, servePlanSchema } from "./mirror";
import { count } from "./primitives";
import { rolloutViewSchema } from "./rollout";

// The API's envelopes (SPEC §3, §7): refusals, live traffic, and the views lists and cards return.
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
  // SPEC §10.5: a pull from the Hugging Face Hub that cannot be made, and why.
  "repo_not_found",
  "gated",
  "no_matching_files",
  "no_space",
  "hub_unreachable",
  "unsafe_listing",
  // SPEC §10.5a: a Hub (or whatever answers at its address) is not trusted.
  "bad_listing",
  "hub_timeout",
  "path_taken",
  "unauthorized",
  "forbidden",
  "payload_too_large",
  "rate_limited",
  // 503 while a server that already holds its port is still starting (apps/api/src/listen.ts).
  "starting",
  "internal",
  // SPEC §11.3: a promote or abort with no rollout to act on.
  "no_rollout",
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
  /**
   * Prompt tokens a second of the requests whose engine reported its cached ones, and the share
   * it found cached (SPEC §7.1a); absent in a second with none.
   */
  promptTokensPerSecond: z.number().min(0).optional(),
  cachedPromptRatio: z.number().min(0).max(1).optional(),
});
export type ModelTraffic = z.infer<typeof modelTrafficSchema>;

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
  /** SPEC §11.5. */
  revision: z.int().min(1),
  rollout: rolloutViewSchema.nullable(),
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

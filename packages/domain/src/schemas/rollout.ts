import { z } from "zod";
import { count } from "./primitives";

// SPEC §11: what a model runs (its source and each profile's engine and args) is its revision.

export const rolloutStateSchema = z.enum(["rolling", "canary", "done", "rolledBack"]);
export type RolloutState = z.infer<typeof rolloutStateSchema>;

/** What the old revision ran: its replicas are started and kept with these until they stop. */
export const revisionSpecSchema = z.object({
  source: z.string(),
  profiles: z.array(z.object({ name: z.string(), engine: z.string(), args: z.array(z.string()) })),
});
export type RevisionSpec = z.infer<typeof revisionSpecSchema>;

/** A rollout as the model's doc keeps it: the live counts are added where it is shown. */
export const storedRolloutSchema = z.object({
  from: z.int().min(1),
  to: z.int().min(1),
  state: rolloutStateSchema,
  canaryPercent: z.int().min(1).max(99).nullable(),
  reason: z.string().nullable(),
  /** When the state last changed. */
  at: z.string(),
  /** When the rollout began: `readySeconds` counts from here. */
  startedAt: z.string(),
  /** Who started it: its state changes are audited by them, a rollback by `rollout`. */
  by: z.string(),
  /** What revision `from` ran. */
  previous: revisionSpecSchema,
  /**
   * Revisions a newer change replaced while they were rolling out, and what each ran: their
   * replicas drain like `from`'s and run that until they stop. Absent when there were none.
   */
  replaced: z
    .array(z.object({ revision: z.int().min(1), spec: revisionSpecSchema }))
    .max(16)
    .optional(),
});
export type StoredRollout = z.infer<typeof storedRolloutSchema>;

const sentFailed = z.object({ sent: count, failed: count });
/** SPEC §11.5: `rollout` on `GET /models[/:name]`. */
export const rolloutViewSchema = storedRolloutSchema.extend({
  replicas: z.object({ old: count, new: count }),
  requests: z.object({ old: sentFailed, new: sentFailed }),
});
export type RolloutView = z.infer<typeof rolloutViewSchema>;

/** `rollout:` in a PATCH (SPEC §11.3). */
export const rolloutPatchSchema = z.strictObject({
  canaryPercent: z.int().min(1, "must be 1 to 99").max(99, "must be 1 to 99"),
});

/** `POST /models/:name/rollout`. */
export const rolloutActionSchema = z.strictObject({ action: z.enum(["promote", "abort"]) });
export type RolloutAction = z.infer<typeof rolloutActionSchema>;

/** `llmgw.yaml`: `rollout: { maxErrorRatio, readySeconds }`. */
export const rolloutSettingsSchema = z.strictObject({
  maxErrorRatio: z.number().min(0).max(1).default(0.2),
  readySeconds: z.int().min(1).max(86_400).default(600),
});
export type RolloutSettings = z.infer<typeof rolloutSettingsSchema>;

import { z } from "zod";
import { storedBenchSchema } from "../bench";
import {
  coversFloor,
  MAX_CPU_CORES,
  MAX_GPUS,
  MAX_MEMORY_GB,
  MAX_REPLICA_COUNT,
  MAX_REPLICAS,
} from "../bounds";
import { text, textMap } from "../text";
import {
  className,
  count,
  description,
  engineName,
  labelKey,
  labelValue,
  limit,
  MAX_LABELS,
  modelName,
  ownerName,
  sourceSchema,
} from "./primitives";
import { rolloutPatchSchema, storedRolloutSchema } from "./rollout";

// The catalogue (SPEC §1, §2.7): classes, quotas, profiles, models, their edits and audit.
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
/** How far traffic may take an always-on model (SPEC §9.6): the card's patch and the serve form. */
export const maxReplicasSchema = z.int().min(1).max(MAX_REPLICAS);
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
  .refine((s) => coversFloor(s.max, s.min), { message: "min must not exceed max", path: ["min"] });
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
  // A replica names the profile it was placed with (SPEC §2.6), so names are unique in a model.
  profiles: z
    .array(profileSchema)
    .min(1, "a model needs at least one profile")
    .superRefine((profiles, ctx) => {
      const name = repeatedProfileName(profiles);
      if (name !== null) ctx.addIssue({ code: "custom", message: `profile name ${name} is used twice` });
    }),
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
  /** SPEC §11.1: what its replicas run, from 1; absent in models stored before it (= 1). */
  revision: z.int().min(1).optional(),
  /** SPEC §11: the last rollout, from its start until the next one. */
  rollout: storedRolloutSchema.nullable().optional(),
});
export type Model = z.infer<typeof modelSchema>;

/** SPEC §2.7: the card's fields, as a JSON merge patch. Unknown fields are refused. */
export const modelPatchSchema = z.strictObject({
  class: className.optional(),
  owner: ownerName.optional(),
  profile: text().min(1).max(64).optional(),
  memoryGB: count.max(MAX_MEMORY_GB).optional(),
  cpuCores: count.max(MAX_CPU_CORES).optional(),
  gpus: count.max(MAX_GPUS).optional(),
  mode: modeSchema.optional(),
  replicas: count.max(MAX_REPLICA_COUNT).optional(),
  idleTimeoutSeconds: count.optional(),
  /** SPEC §9.6: at least min, at most 64; after `mode` and `replicas` in the same patch. */
  maxReplicas: maxReplicasSchema.optional(),
  targetInFlight: targetInFlightSchema.optional(),
  description: description.max(2000).optional(),
  aliases: z.array(modelName).max(32).optional(),
  contextLength: z.int().positive().optional(),
  maxOutput: z.int().min(0).nullable().optional(),
  /** SPEC §11.1: a change of either starts a rollout to a new revision. */
  source: sourceSchema.optional(),
  args: z.array(text().max(4096)).max(256, "at most 256 args").optional(),
  /** SPEC §11.3: with a source or args change, a canary taking this share of requests. */
  rollout: rolloutPatchSchema.optional(),
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
  replicas: count.max(MAX_REPLICA_COUNT),
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

/**
 * The first profile name declared twice, or null: a replica names its profile, so names are unique.
 * Beside the schema that refuses it (need.ts reads the schemas, so it cannot live there).
 */
export function repeatedProfileName(profiles: readonly { name: string }[]): string | null {
  const seen = new Set<string>();
  for (const { name } of profiles) {
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return null;
}

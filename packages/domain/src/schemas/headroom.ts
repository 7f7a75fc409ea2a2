import { z } from "zod";
import { resourcesSchema } from "./catalogue";
import { nodeSchema } from "./fleet";
import { count } from "./primitives";

// Headroom and capacity (SPEC §2.4, §3): how many more replicas fit, why not, what the fleet holds.
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

import { z } from "zod";
import { autoscaleViewSchema } from "./autoscale";
import { benchProgressSchema } from "./bench";
import { pullSchema } from "./pullSchemas";
import {
  capacitySchema,
  headroomSummarySchema,
  mirrorEntrySchema,
  mirrorVersionSchema,
  modelSchema,
  modelSummarySchema,
  modelTrafficSchema,
  nodeSchema,
  nodeViewSchema,
  quotaUsageSchema,
  replicaSchema,
  rolloutViewSchema,
} from "./schemas";

// The event stream's contract (SPEC §3, §7.7): every event the server commits or sends, each
// type with its payload. The server can announce nothing else, and the dashboard's handlers are
// typed by it, so a payload change that breaks a screen fails the type check.

const event = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({ type: z.literal(type), data });

/** What a removal names: the entity is gone, so only its key travels. */
const removedModel = modelSchema.pick({ name: true });
const removedNode = nodeSchema.pick({ name: true });

/**
 * A replica as stored, or the last of it once it is gone (`removed: true`): the dashboard drops
 * it from its model and node by the fields it still carries.
 */
export const replicaChangeSchema = replicaSchema.extend({ removed: z.boolean().optional() });
export type ReplicaChange = z.infer<typeof replicaChangeSchema>;

/** A mirrored version with its serve plan, or the key of one the mirror no longer holds. */
export const mirrorChangeSchema = z.union([
  mirrorEntrySchema,
  mirrorVersionSchema.pick({ model: true, version: true }).extend({ removed: z.literal(true) }),
]);
export type MirrorChange = z.infer<typeof mirrorChangeSchema>;

/** A change of an autoscaled model's wanted replicas (SPEC §9.5), with why, in numbers. */
export const modelScaledSchema = z.object({
  model: z.string(),
  from: z.int().min(0),
  to: z.int().min(0),
  /** Requests in flight or queued over every process, when wanted moved. */
  demand: z.int().min(0),
  reason: z.string(),
});
export type ModelScaled = z.infer<typeof modelScaledSchema>;

/**
 * An autoscaled model's line as this process now works it out (SPEC §9.5: demand, desired,
 * wanted, when it may fall), sent when it changes so a card follows it; null once the model is
 * no longer autoscaled.
 */
export const modelAutoscaleSchema = z.object({
  model: z.string(),
  autoscale: autoscaleViewSchema.nullable(),
});
export type ModelAutoscale = z.infer<typeof modelAutoscaleSchema>;

/** A change of a rollout's state (SPEC §11.5): the model and its rollout as it stands. */
export const modelRolloutSchema = z.object({ model: z.string(), rollout: rolloutViewSchema });
export type ModelRollout = z.infer<typeof modelRolloutSchema>;

/** Events written to the store with the change they describe: they have ids and are replayed. */
const changeEvents = [
  event("model.changed", modelSummarySchema),
  event("model.removed", removedModel),
  event("node.changed", nodeViewSchema),
  event("node.removed", removedNode),
  event("replica.changed", replicaChangeSchema),
  event("mirror.changed", mirrorChangeSchema),
  event("quota.changed", quotaUsageSchema),
  event("model.scaled", modelScaledSchema),
  // SPEC §10.4: a pull's progress (at most 4 a second) and its end, stored with the pull itself.
  event("mirror.pull", pullSchema),
  // SPEC §11.5: each change of a rollout's state.
  event("model.rollout", modelRolloutSchema),
] as const;
/**
 * What fleet-wide sums moved to since the process last said (SPEC §2.4's size rule for events):
 * the headroom of only the models whose headroom changed, and the fleet's totals. A heartbeat
 * moves sums over every model; this lets a screen update the cards in place instead of fetching
 * the whole list again.
 */
export const headroomChangeSchema = z.object({
  models: z.array(headroomSummarySchema),
  capacity: capacitySchema,
});
export type HeadroomChange = z.infer<typeof headroomChangeSchema>;

/** Events for one process's open streams alone: never stored, no id, not replayed. */
const ephemeralEvents = [
  event("model.traffic", modelTrafficSchema),
  event("headroom.changed", headroomChangeSchema),
  event("model.bench", benchProgressSchema),
  event("model.autoscale", modelAutoscaleSchema),
] as const;

export const changeEventSchema = z.discriminatedUnion("type", [...changeEvents]);
export const liveEventSchema = z.discriminatedUnion("type", [...changeEvents, ...ephemeralEvents]);

/** Any event of the stream, as `{ type, data }`: narrowing on `type` gives the payload's type. */
export type LiveEvent = z.infer<typeof liveEventSchema>;
/** An event a commit stores and announces (every type but the ephemeral `model.traffic`). */
export type ChangeEvent = z.infer<typeof changeEventSchema>;
export type EphemeralEvent = Exclude<LiveEvent, ChangeEvent>;

export type EventType = LiveEvent["type"];
export type ChangeEventType = ChangeEvent["type"];
export type EventOf<T extends EventType> = Extract<LiveEvent, { type: T }>;
export type EventData<T extends EventType> = EventOf<T>["data"];

export const eventTypeSchema = z.enum(liveEventSchema.options.map((o) => o.shape.type.value) as [EventType]);
export const changeEventTypeSchema = z.enum(
  changeEventSchema.options.map((o) => o.shape.type.value) as [ChangeEventType],
);
export const EVENT_TYPES: readonly EventType[] = eventTypeSchema.options;

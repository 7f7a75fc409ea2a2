import { modelTrafficSchema } from "@llmgw/domain";
import { z } from "zod";
import { route } from "./route";

/** One second of a model's `model.traffic`, at the Unix second it was sent. */
export const trafficSecondSchema = modelTrafficSchema.omit({ model: true }).extend({ at: z.int() });
export type TrafficSecond = z.infer<typeof trafficSecondSchema>;

/**
 * `GET /models/:name/traffic` (SPEC §7.7): the model's last minutes of `model.traffic`, so a page
 * opened later draws the minutes before it. `now` is the server's clock (Unix seconds), for a
 * browser whose clock differs to place the seconds; `since` is the first second the server knows
 * (it keeps 10 minutes, and none from before it started keeping them), null when it keeps none: a
 * second from `since` on with no entry had no traffic, one before it is unknown.
 */
export const trafficHistorySchema = z.object({
  model: z.string(),
  now: z.int(),
  since: z.int().nullable(),
  seconds: z.array(trafficSecondSchema),
});
export type TrafficHistory = z.infer<typeof trafficHistorySchema>;

/** A model's recent traffic through the gateway (SPEC §7.7). */
export const traffic = {
  history: route({
    method: "GET",
    path: "/api/v1/models/:name/traffic",
    need: "viewer",
    summary: "a model's last 10 minutes of traffic, per second",
    ok: { status: 200, description: "the model's traffic by second", schema: trafficHistorySchema },
    refusals: [404],
  }),
} as const;

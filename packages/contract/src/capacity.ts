import { capacitySchema, classSchema, headroomSummarySchema } from "@llmgw/domain";
import { z } from "zod";
import { route } from "./route";

/**
 * `GET /capacity` with whether this server's scheduler places replicas (`LLMGW_SCHEDULER`): off,
 * nothing fills a model short of its replicas but agents, which the Capacity page must say. Set at
 * start, not a fleet sum, so `headroom.changed`'s capacity leaves it out.
 */
export const capacityAnswerSchema = capacitySchema.extend({ scheduler: z.boolean() });

/** What the fleet could still take, by model and by priority class (SPEC §5). */
export const capacity = {
  headroom: route({
    method: "GET",
    path: "/api/v1/headroom",
    need: "viewer",
    summary: "every model's headroom",
    ok: { status: 200, description: "the headroom of every model", schema: z.array(headroomSummarySchema) },
    refusals: [],
  }),
  byClass: route({
    method: "GET",
    path: "/api/v1/capacity",
    need: "viewer",
    summary: "the fleet's capacity by priority class",
    ok: { status: 200, description: "capacity", schema: capacityAnswerSchema },
    refusals: [],
  }),
  classes: route({
    method: "GET",
    path: "/api/v1/classes",
    need: "viewer",
    summary: "the priority classes",
    ok: { status: 200, description: "the classes", schema: z.array(classSchema) },
    refusals: [],
  }),
} as const;

import { capacitySchema, classSchema, headroomSummarySchema } from "@llmgw/domain";
import { z } from "zod";
import { route } from "./route";

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
    ok: { status: 200, description: "capacity", schema: capacitySchema },
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

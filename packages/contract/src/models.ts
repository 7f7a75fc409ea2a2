import {
  apiErrorSchema,
  benchRequestSchema,
  benchResultSchema,
  benchStartedSchema,
  headroomSchema,
  modelInputSchema,
  modelPatchSchema,
  modelSummarySchema,
  modelViewSchema,
  rolloutActionSchema,
  storedBenchSchema,
  targetRefusedBodySchema,
  targetRequestSchema,
  targetResultSchema,
} from "@llmgw/domain";
import { z } from "zod";
import { route } from "./route";

/** `POST /models/:name/wake`'s answer: when the model was woken (SPEC §3 "On demand"). */
export const wokenSchema = z.object({ model: z.string(), wokenAt: z.string() });

/** The catalogue (SPEC §3). */
export const models = {
  list: route({
    method: "GET",
    path: "/api/v1/models",
    need: "viewer",
    summary: "every model in the catalogue, with its replicas, headroom and how it autoscales",
    ok: { status: 200, description: "the catalogue", schema: z.array(modelSummarySchema) },
    refusals: [],
  }),
  create: route({
    method: "POST",
    path: "/api/v1/models",
    need: "operator",
    summary: "add a model to the catalogue",
    body: modelInputSchema,
    ok: { status: 201, description: "created", schema: modelViewSchema },
    refusals: [400, 409, 413, 415],
  }),
  get: route({
    method: "GET",
    path: "/api/v1/models/:name",
    need: "viewer",
    summary: "one model; its ETag is the version a PATCH must name",
    ok: { status: 200, description: "the model", schema: modelViewSchema },
    refusals: [404],
  }),
  patch: route({
    method: "PATCH",
    path: "/api/v1/models/:name",
    need: "operator",
    summary:
      "a JSON merge patch of the model (maxReplicas and targetInFlight for autoscaling too), applied only to the version read (If-Match)",
    headers: [{ name: "If-Match", required: true, description: 'the ETag read with the model ("7")' }],
    body: modelPatchSchema,
    ok: { status: 200, description: "the model as patched", schema: modelViewSchema },
    refusals: [400, 404, 409, 412, 413, 415, 428],
  }),
  remove: route({
    method: "DELETE",
    path: "/api/v1/models/:name",
    need: "operator",
    summary: "remove a runtime model (a model from llmgw.yaml is removed there)",
    ok: { status: 204, description: "removed" },
    refusals: [404, 409],
  }),
  headroom: route({
    method: "GET",
    path: "/api/v1/models/:name/headroom",
    need: "viewer",
    summary: "how many more replicas the model could get, and where",
    ok: { status: 200, description: "its headroom", schema: headroomSchema },
    refusals: [404],
  }),
  target: route({
    method: "POST",
    path: "/api/v1/models/:name/target",
    need: "operator",
    summary: "ask for a number of replicas; a dry run says what it would evict",
    body: targetRequestSchema,
    ok: { status: 200, description: "what was (or would be) done", schema: targetResultSchema },
    refusals: [400, 404, 409, 413, 415],
    // A refused target (not a dry run) is a 409 with the dry run's fields; a declared model's is the plain error.
    refusalBodies: { 409: z.union([targetRefusedBodySchema, apiErrorSchema]) },
  }),
  wake: route({
    method: "POST",
    path: "/api/v1/models/:name/wake",
    need: "operator",
    summary: "wake an on-demand model as a request would",
    ok: { status: 202, description: "woken", schema: wokenSchema },
    refusals: [404, 409],
  }),
  rollout: route({
    method: "POST",
    path: "/api/v1/models/:name/rollout",
    need: "operator",
    summary: "promote a held canary (the rollout goes on) or abort the rollout (as a rollback)",
    body: rolloutActionSchema,
    ok: { status: 200, description: "the model", schema: modelViewSchema },
    refusals: [400, 404, 409, 413, 415],
  }),
  bench: route({
    method: "POST",
    path: "/api/v1/models/:name/bench",
    need: "operator",
    summary:
      "measure the model through the gateway in the background (model.bench events); the result is stored as its bench",
    body: benchRequestSchema,
    ok: { status: 202, description: "the bench started", schema: benchStartedSchema },
    refusals: [400, 404, 409, 413, 415],
  }),
  putBench: route({
    method: "PUT",
    path: "/api/v1/models/:name/bench",
    need: "operator",
    summary: "store a bench measured elsewhere (`llmgw ctl bench`) as the model's last",
    body: benchResultSchema,
    ok: { status: 200, description: "the bench as stored", schema: storedBenchSchema },
    refusals: [400, 404, 413, 415],
  }),
} as const;

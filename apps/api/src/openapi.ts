import {
  apiErrorSchema,
  auditEntrySchema,
  capacitySchema,
  classSchema,
  conflictBodySchema,
  headroomSchema,
  heartbeatReplySchema,
  heartbeatSchema,
  mirrorEntrySchema,
  modelInputSchema,
  modelPatchSchema,
  modelViewSchema,
  nodeViewSchema,
  quotaLimitsSchema,
  quotaUsageSchema,
  replicaSchema,
  servePlanSchema,
  targetRequestSchema,
  targetResultSchema,
} from "@llmgw/domain";
import { z } from "zod";
import { signInSchema, tokenCreateSchema } from "./auth/schemas";

// GET /api/v1/openapi.json, generated from the very schemas the routes validate with.

const components = {
  ModelInput: [modelInputSchema, "input"],
  ModelPatch: [modelPatchSchema, "input"],
  ModelView: [modelViewSchema, "output"],
  Headroom: [headroomSchema, "output"],
  TargetRequest: [targetRequestSchema, "input"],
  TargetResult: [targetResultSchema, "output"],
  NodeView: [nodeViewSchema, "output"],
  Replica: [replicaSchema, "output"],
  Heartbeat: [heartbeatSchema, "input"],
  HeartbeatReply: [heartbeatReplySchema, "output"],
  MirrorEntry: [mirrorEntrySchema, "output"],
  ServePlan: [servePlanSchema, "output"],
  QuotaUsage: [quotaUsageSchema, "output"],
  QuotaLimits: [quotaLimitsSchema, "input"],
  Class: [classSchema, "output"],
  Capacity: [capacitySchema, "output"],
  AuditEntry: [auditEntrySchema, "output"],
  Error: [apiErrorSchema, "output"],
  Conflict: [conflictBodySchema, "output"],
  TokenCreate: [tokenCreateSchema, "input"],
  SignIn: [signInSchema, "input"],
} as const;
type Component = keyof typeof components;

const ref = (name: Component) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ content: { "application/json": { schema } } });
const ok = (name: Component, many = false, status = "200") => ({
  [status]: { description: "OK", ...json(many ? { type: "array", items: ref(name) } : ref(name)) },
});
const errors = (...codes: number[]) =>
  Object.fromEntries(
    codes.map((code) => [
      String(code),
      { description: "refused", ...json(ref(code === 412 ? "Conflict" : "Error")) },
    ]),
  );
const body = (name: Component) => ({ requestBody: { required: true, ...json(ref(name)) } });
const name = [{ name: "name", in: "path", required: true, schema: { type: "string" } }];

/**
 * The request path (SPEC §7), outside /api: OpenAI's own shapes, passed through to the engines, so
 * only their outline is given here. Errors are OpenAI's `{ error: { message, type, code, param } }`.
 */
const openAiError = {
  type: "object",
  properties: {
    error: {
      type: "object",
      properties: {
        message: { type: "string" },
        type: { type: "string" },
        code: { type: "string" },
        param: { type: "string", nullable: true },
      },
    },
  },
};
const inference = (description: string) => ({
  servers: [{ url: "/" }],
  post: {
    description,
    requestBody: {
      required: true,
      ...json({ type: "object", required: ["model"], properties: { model: { type: "string" } } }),
    },
    responses: {
      "200": {
        description: "the engine's answer, passed through (an event stream when `stream` is true)",
        content: { "application/json": {}, "text/event-stream": {} },
      },
      ...Object.fromEntries(
        [400, 401, 403, 404, 413, 429, 503].map((code) => [
          String(code),
          { description: "refused", ...json(openAiError) },
        ]),
      ),
    },
  },
});
const inferencePaths = {
  "/v1/chat/completions": inference("OpenAI chat completions, routed to a ready replica of `model`"),
  "/v1/completions": inference("OpenAI completions, routed to a ready replica of `model`"),
  "/v1/embeddings": inference("OpenAI embeddings, routed to a ready replica of `model`"),
  "/v1/{path}": {
    ...inference("any other POST whose JSON body names a `model`, routed the same way"),
    parameters: [{ name: "path", in: "path", required: true, schema: { type: "string" } }],
  },
  "/v1/models": {
    servers: [{ url: "/" }],
    get: {
      description: "every catalogue model not stopped, OpenAI's list shape",
      responses: { "200": { description: "OK" } },
    },
  },
  "/v1/models/{model}": {
    servers: [{ url: "/" }],
    parameters: [{ name: "model", in: "path", required: true, schema: { type: "string" } }],
    get: {
      description: "one model by name or alias",
      responses: { "200": { description: "OK" }, "404": { description: "refused", ...json(openAiError) } },
    },
  },
};

export function openApiDocument() {
  const schemas = Object.fromEntries(
    Object.entries(components).map(([key, [schema, io]]) => [
      key,
      z.toJSONSchema(schema, { io, unrepresentable: "any", target: "openapi-3.0" }),
    ]),
  );
  return {
    openapi: "3.0.3",
    info: { title: "llmgw", version: "1", description: "The llmgw control plane's HTTP API (SPEC §3)." },
    servers: [{ url: "/api/v1" }],
    paths: {
      ...inferencePaths,
      "/models": {
        get: { responses: ok("ModelView", true) },
        post: { ...body("ModelInput"), responses: { ...ok("ModelView", false, "201"), ...errors(400, 409) } },
      },
      "/models/{name}": {
        parameters: name,
        get: { responses: { ...ok("ModelView"), ...errors(404) } },
        patch: {
          parameters: [{ name: "If-Match", in: "header", required: true, schema: { type: "string" } }],
          ...body("ModelPatch"),
          responses: { ...ok("ModelView"), ...errors(400, 404, 409, 412, 428) },
        },
        delete: { responses: { "204": { description: "removed" }, ...errors(404, 409) } },
      },
      "/models/{name}/headroom": {
        parameters: name,
        get: { responses: { ...ok("Headroom"), ...errors(404) } },
      },
      "/models/{name}/target": {
        parameters: name,
        post: { ...body("TargetRequest"), responses: { ...ok("TargetResult"), ...errors(400, 404, 409) } },
      },
      "/models/{name}/wake": {
        parameters: name,
        post: { responses: { "202": { description: "woken" }, ...errors(404, 409) } },
      },
      "/headroom": { get: { responses: ok("Headroom", true) } },
      "/fleet/nodes": { get: { responses: ok("NodeView", true) } },
      "/fleet/replicas": { get: { responses: ok("Replica", true) } },
      "/fleet/nodes/{name}/drain": {
        parameters: name,
        post: { responses: { ...ok("NodeView"), ...errors(404) } },
      },
      "/fleet/nodes/{name}/resume": {
        parameters: name,
        post: { responses: { ...ok("NodeView"), ...errors(404) } },
      },
      "/fleet/nodes/{name}": {
        parameters: name,
        delete: {
          description: "forget a down node and its replicas (409 for a live one)",
          responses: { "204": { description: "forgotten" }, ...errors(404, 409) },
        },
      },
      "/agents/heartbeat": {
        post: {
          description:
            "agent: the token is bound to one node (403 for another), a replica id another node holds is 409",
          ...body("Heartbeat"),
          responses: { ...ok("HeartbeatReply"), ...errors(400, 403, 409, 429) },
        },
      },
      "/mirror": { get: { responses: ok("MirrorEntry", true) } },
      "/mirror/{model}/{version}/plan": {
        parameters: [
          { name: "model", in: "path", required: true, schema: { type: "string" } },
          { name: "version", in: "path", required: true, schema: { type: "string" } },
          { name: "ctxPool", in: "query", required: false, schema: { type: "integer" } },
        ],
        get: { responses: { ...ok("ServePlan"), ...errors(404) } },
      },
      "/quotas": { get: { responses: ok("QuotaUsage", true) } },
      "/quotas/{owner}": {
        parameters: [{ name: "owner", in: "path", required: true, schema: { type: "string" } }],
        put: { ...body("QuotaLimits"), responses: { ...ok("QuotaUsage"), ...errors(400) } },
      },
      "/classes": { get: { responses: ok("Class", true) } },
      "/capacity": { get: { responses: ok("Capacity") } },
      "/audit": {
        get: {
          parameters: [
            { name: "model", in: "query", required: false, schema: { type: "string" } },
            {
              name: "limit",
              in: "query",
              required: false,
              schema: { type: "integer", minimum: 1, maximum: 1000 },
            },
          ],
          responses: ok("AuditEntry", true),
        },
      },
      "/tokens": {
        get: {
          description:
            "admin: every token's name, role, origin, an agent's node and a client's models and limits, never a secret",
          responses: {},
        },
        post: {
          description: "admin: the new token is in the answer, the only time it is shown",
          ...body("TokenCreate"),
          responses: { "201": { description: "created" }, ...errors(400, 409) },
        },
      },
      "/tokens/{name}": {
        parameters: name,
        delete: { responses: { "204": { description: "revoked" }, ...errors(404, 409) } },
      },
      "/session": {
        get: {
          description: "who this request is",
          responses: { "200": { description: "OK" }, ...errors(401) },
        },
        post: {
          description: "sign in: sets the httpOnly session cookie; no credentials needed",
          security: [],
          ...body("SignIn"),
          responses: { "200": { description: "signed in" }, ...errors(400, 401, 403, 429) },
        },
        delete: {
          description: "sign out",
          security: [],
          responses: { "204": { description: "signed out" } },
        },
      },
      "/events": {
        get: {
          responses: { "200": { description: "Server-Sent Events", content: { "text/event-stream": {} } } },
        },
      },
    },
    // Every operation needs one of these unless it says otherwise (SPEC §4 "Tokens and roles").
    security: [{ bearer: [] }, { session: [] }],
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "a token (llmgw_…)" },
        session: { type: "apiKey", in: "cookie", name: "llmgw_session" },
      },
    },
  };
}

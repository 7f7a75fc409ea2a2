import {
  createdTokenSchema,
  openAiErrorSchema,
  openAiModelSchema,
  ROUTES,
  type Route,
  sessionViewSchema,
  signInSchema,
  tokenCreateSchema,
  tokenViewSchema,
} from "@llmgw/contract";
import {
  apiErrorSchema,
  auditEntrySchema,
  capacitySchema,
  classSchema,
  conflictBodySchema,
  headroomSchema,
  headroomSummarySchema,
  heartbeatReplySchema,
  heartbeatSchema,
  mirrorEntrySchema,
  modelInputSchema,
  modelPatchSchema,
  modelSummarySchema,
  modelViewSchema,
  nodeViewSchema,
  quotaLimitsSchema,
  quotaUsageSchema,
  replicaSchema,
  servePlanSchema,
  targetRefusedBodySchema,
  targetRequestSchema,
  targetResultSchema,
} from "@llmgw/domain";
import { z } from "zod";

// GET /api/v1/openapi.json, generated from the contract: every route the server registers, with
// the very schemas it validates with. Only the names of shared schemas are written here.

/** Schemas shown once under components and referred to by name; any other is written in place. */
const NAMED: ReadonlyArray<readonly [string, z.ZodType, "input" | "output"]> = [
  ["ModelInput", modelInputSchema, "input"],
  ["ModelPatch", modelPatchSchema, "input"],
  ["ModelView", modelViewSchema, "output"],
  ["ModelSummary", modelSummarySchema, "output"],
  ["Headroom", headroomSchema, "output"],
  ["HeadroomSummary", headroomSummarySchema, "output"],
  ["TargetRequest", targetRequestSchema, "input"],
  ["TargetResult", targetResultSchema, "output"],
  ["NodeView", nodeViewSchema, "output"],
  ["Replica", replicaSchema, "output"],
  ["Heartbeat", heartbeatSchema, "input"],
  ["HeartbeatReply", heartbeatReplySchema, "output"],
  ["MirrorEntry", mirrorEntrySchema, "output"],
  ["ServePlan", servePlanSchema, "output"],
  ["QuotaUsage", quotaUsageSchema, "output"],
  ["QuotaLimits", quotaLimitsSchema, "input"],
  ["Class", classSchema, "output"],
  ["Capacity", capacitySchema, "output"],
  ["AuditEntry", auditEntrySchema, "output"],
  ["TokenCreate", tokenCreateSchema, "input"],
  ["TokenView", tokenViewSchema, "output"],
  ["CreatedToken", createdTokenSchema, "output"],
  ["SignIn", signInSchema, "input"],
  ["SessionView", sessionViewSchema, "output"],
  ["OpenAiModel", openAiModelSchema, "output"],
  ["Error", apiErrorSchema, "output"],
  ["Conflict", conflictBodySchema, "output"],
  ["TargetRefused", targetRefusedBodySchema, "output"],
  ["OpenAiError", openAiErrorSchema, "output"],
];

type JsonSchema = Record<string, unknown>;

const toJson = (schema: z.ZodType, io: "input" | "output"): JsonSchema =>
  z.toJSONSchema(schema, { io, unrepresentable: "any", target: "openapi-3.0" }) as JsonSchema;

/** A schema as a `$ref` when it is named, an array of one by reference, else written out. */
function schemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const named = NAMED.find(([, s]) => s === schema);
  if (named) return { $ref: `#/components/schemas/${named[0]}` };
  if (schema instanceof z.ZodArray) {
    const item = NAMED.find(([, s]) => s === schema.element);
    if (item) return { type: "array", items: { $ref: `#/components/schemas/${item[0]}` } };
  }
  if (schema instanceof z.ZodUnion) {
    const options = schema.options as readonly z.ZodType[];
    if (options.every((o) => NAMED.some(([, s]) => s === o)))
      return { anyOf: options.map((o) => schemaOf(o, io)) };
  }
  return toJson(schema, io);
}

const json = (schema: JsonSchema) => ({ content: { "application/json": { schema } } });

/** `/models/:name` → `/models/{name}`; a trailing `*` is the rest of the path, `{path}`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, "{$1}").replace(/\*$/, "{path}");

const STATUS_WORDS: Record<number, string> = {
  400: "the request is not valid (fields name what)",
  401: "no valid credentials: none, unknown, revoked or expired",
  403: "the caller may not do this",
  404: "not found",
  409: "it conflicts with what is there",
  412: "the model changed since it was read",
  413: "the body is too large",
  415: "the body is not JSON",
  416: "the range is outside the file",
  428: "If-Match is required",
  429: "too many; Retry-After says when to try again",
  502: "the engine, or the Hugging Face Hub, failed",
  503: "nothing can serve it now",
  504: "the engine, or the Hugging Face Hub, did not answer in time",
  507: "too little disk for it",
};

/** Every refusal a route can answer: its own, and the 401 and 403 its need implies. */
function refusalsOf(route: Route): number[] {
  const implied = route.need === "public" ? [] : [401, 403];
  return [...new Set([...route.refusals, ...implied])].sort((a, b) => a - b);
}

function errorSchemaOf(route: Route, status: number): JsonSchema {
  if (route.need === "inference") return schemaOf(openAiErrorSchema, "output");
  const own = route.refusalBodies?.[status];
  if (own) return schemaOf(own, "output");
  return schemaOf(status === 412 ? conflictBodySchema : apiErrorSchema, "output");
}

function operationOf(route: Route) {
  const pathParameters = [...route.path.matchAll(/:([A-Za-z]+)/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  if (route.path.endsWith("*"))
    pathParameters.push({ name: "path", in: "path", required: true, schema: { type: "string" } });
  const query = route.query ? toJson(route.query, "input") : null;
  const required = new Set((query?.required as string[] | undefined) ?? []);
  const queryParameters = Object.entries(
    (query?.properties as Record<string, JsonSchema> | undefined) ?? {},
  ).map(([name, schema]) => ({ name, in: "query", required: required.has(name), schema }));
  const headerParameters = (route.headers ?? []).map((h) => ({
    name: h.name,
    in: "header",
    required: h.required,
    description: h.description,
    schema: { type: "string" },
  }));
  const { ok } = route;
  const answer = ok.schema ?? ok.passedOn;
  const content = answer
    ? {
        "application/json": { schema: schemaOf(answer, "output") },
        ...(ok.passedOn ? { "text/event-stream": {} } : {}),
      }
    : ok.media
      ? { [ok.media]: {} }
      : undefined;
  return {
    summary: route.summary,
    ...(route.need === "public" ? { security: [] } : {}),
    "x-llmgw-need": route.need,
    parameters: [...pathParameters, ...queryParameters, ...headerParameters],
    ...(route.body ? { requestBody: { required: true, ...json(schemaOf(route.body, "input")) } } : {}),
    responses: {
      ...(route.fallback
        ? {}
        : { [String(ok.status)]: { description: ok.description, ...(content ? { content } : {}) } }),
      ...Object.fromEntries(
        refusalsOf(route).map((status) => [
          String(status),
          { description: STATUS_WORDS[status] ?? "refused", ...json(errorSchemaOf(route, status)) },
        ]),
      ),
    },
  };
}

/** The document's path for a route: under /api/v1 relative to its server, else from the root. */
export function documentedPath(route: Pick<Route, "path">): string {
  const path = openApiPath(route.path);
  return path.startsWith("/api/v1/") ? path.slice("/api/v1".length) : path;
}

/** Operations by path, then lower-case method; `ALL` is documented as every method it answers. */
function pathsOf(routes: readonly Route[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = documentedPath(route);
    const entry = paths[path] ?? (route.path.startsWith("/api/v1/") ? {} : { servers: [{ url: "/" }] });
    paths[path] = entry;
    const methods =
      route.method === "ALL" ? ["get", "post", "put", "patch", "delete"] : [route.method.toLowerCase()];
    // A fallback does not take the place of a route of the same path and method.
    for (const method of methods)
      if (!(method in entry) || !route.fallback) entry[method] = operationOf(route);
  }
  return paths;
}

export function openApiDocument() {
  return {
    openapi: "3.0.3",
    info: {
      title: "llmgw",
      version: "1",
      description:
        "The llmgw control plane's HTTP API (SPEC §3) and the request path (SPEC §7). `x-llmgw-need` is the least role a route asks.",
    },
    servers: [{ url: "/api/v1" }],
    paths: pathsOf(ROUTES),
    // Every operation needs one of these unless it says otherwise (SPEC §4 "Tokens and roles").
    security: [{ bearer: [] }, { session: [] }],
    components: {
      schemas: Object.fromEntries(NAMED.map(([name, schema, io]) => [name, toJson(schema, io)])),
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "a token (llmgw_…)" },
        session: { type: "apiKey", in: "cookie", name: "llmgw_session" },
      },
    },
  };
}

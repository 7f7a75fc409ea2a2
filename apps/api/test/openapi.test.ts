import { ROUTES } from "@llmgw/contract";
import type { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createApp, requestPathOf } from "../src/app";
import { isEndpoint } from "../src/auth/rules";
import { Control } from "../src/control/control";
import type { Deps } from "../src/deps";
import type { AppEnv } from "../src/env";
import { documentedPath, openApiDocument } from "../src/openapi";
import { useApi } from "./harness";
import { dashboardDir, removeDashboard } from "./security-kit";

// GET /api/v1/openapi.json against the live route list: every endpoint the server registers is
// documented with its method, parameters, body, answer and 401/403, and nothing else is.

const api = useApi();
afterAll(removeDashboard);

const operationSchema = z.object({
  parameters: z.array(z.object({ name: z.string(), in: z.string() })),
  requestBody: z.unknown().optional(),
  responses: z.record(z.string(), z.object({ description: z.string(), content: z.unknown().optional() })),
  security: z.array(z.unknown()).optional(),
});
const documentSchema = z.object({
  openapi: z.string(),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.object({ schemas: z.record(z.string(), z.unknown()) }),
});
type Document = z.infer<typeof documentSchema>;

const METHODS = ["get", "post", "put", "patch", "delete"];

/**
 * `METHOD /documented/path` for every endpoint the app answers, Hono's and the request path's own
 * (`ALL` is every method).
 */
function liveOperations(app: Hono<AppEnv>): Set<string> {
  const keys = [...app.routes.filter(isEndpoint), ...(requestPathOf(app)?.routes ?? [])].flatMap((r) =>
    (r.method === "ALL" ? METHODS : [r.method.toLowerCase()]).map((m) => `${m} ${documentedPath(r)}`),
  );
  return new Set(keys);
}

function documentedOperations(doc: Document): Set<string> {
  return new Set(
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => METHODS.includes(m))
        .map((m) => `${m} ${path}`),
    ),
  );
}

/** What one side has and the other lacks: both empty when the document and the server agree. */
function disagreement(app: Hono<AppEnv>, doc: Document) {
  const live = liveOperations(app);
  const documented = documentedOperations(doc);
  return {
    undocumented: [...live].filter((k) => !documented.has(k)).sort(),
    unanswered: [...documented].filter((k) => !live.has(k)).sort(),
  };
}

/** An app with the dashboard built, so its page is one of the routes; no store is touched. */
function liveApp(): Hono<AppEnv> {
  const deps = { store: { events: {} }, hub: {}, mirror: {} } as unknown as Deps;
  return createApp(deps, new Control(deps), { webDist: dashboardDir() });
}

describe("GET /openapi.json", () => {
  it("documents every endpoint the server answers, and only those", async () => {
    const res = await api.app.request("/api/v1/openapi.json");
    const doc = documentSchema.parse(await res.json());

    expect(res.status).toBe(200);
    expect(doc.openapi).toMatch(/^3\./);
    expect(disagreement(liveApp(), doc)).toEqual({ undocumented: [], unanswered: [] });
  });

  it("names a route added beside the contract, and one the document lost", () => {
    const app = liveApp();
    app.get("/api/v1/extra", (c) => c.json({}));
    const doc = documentSchema.parse(openApiDocument());
    delete doc.paths["/tokens"];

    expect(disagreement(app, doc)).toEqual({
      undocumented: ["get /extra", "get /tokens", "post /tokens"],
      unanswered: [],
    });
  });

  it("gives every operation its path parameters, body, answer, and the 401 and 403 its role implies", () => {
    const doc = documentSchema.parse(openApiDocument());

    for (const route of ROUTES) {
      const methods = route.method === "ALL" ? METHODS : [route.method.toLowerCase()];
      for (const method of methods) {
        const operation = operationSchema.parse(doc.paths[documentedPath(route)]?.[method]);
        const where = `${method} ${route.path}`;
        const params = operation.parameters.filter((p) => p.in === "path").map((p) => p.name);
        for (const [, name] of route.path.matchAll(/:([A-Za-z]+)/g)) expect(params, where).toContain(name);
        if (route.need !== "public")
          expect(Object.keys(operation.responses), where).toEqual(expect.arrayContaining(["401", "403"]));
        else expect(operation.security, where).toEqual([]);
        if (route.body) expect(operation.requestBody, where).toBeDefined();
        if (route.fallback) continue;
        const ok = operation.responses[String(route.ok.status)];
        expect(ok, where).toBeDefined();
        if (route.ok.schema) expect(ok?.content, where).toBeDefined();
        for (const query of Object.keys((route.query as z.ZodObject | undefined)?.shape ?? {}))
          expect(
            operation.parameters.map((p) => p.name),
            where,
          ).toContain(query);
      }
    }
  });

  it("resolves every reference to a component it holds", () => {
    const doc = openApiDocument();
    const refs = [...JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map(
      ([, name]) => name,
    );

    expect(refs.length).toBeGreaterThan(20);
    for (const name of refs) expect(Object.keys(doc.components.schemas)).toContain(name);
  });
});

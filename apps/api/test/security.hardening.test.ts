import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../src/app";
import type { Role } from "../src/config";
import { type App, errorOf, heartbeat, modelInput, useApi } from "./harness";
import { bodyCases, unsampled } from "./security-bodies";
import { bearer, dashboardDir, removeDashboard, SECRETS, storeDump, tokensYaml } from "./security-kit";

// OWASP API8 (security misconfiguration), API3 (mass assignment), API4 (unbounded input) and API7
// (server-side request forgery): what every response carries, what no request can slip past.

const api = useApi({ yaml: tokensYaml() });
let app: App;
beforeAll(() => {
  app = createApp(api.deps, api.control, { webDist: dashboardDir() });
});
afterAll(removeDashboard);

const as = (role: Role, headers: Record<string, string> = {}) => ({ ...bearer(SECRETS[role]), ...headers });
const json = { "content-type": "application/json" };

describe("security headers", () => {
  it.each([
    ["an API answer", "/api/v1/models", as("viewer")],
    ["a refusal", "/api/v1/models", {}],
    ["an unknown API path", "/api/v1/nothing", as("viewer")],
    ["liveness", "/healthz", {}],
    ["metrics", "/metrics", as("viewer")],
    ["a mirror miss", "/mirror/m/v/f", as("viewer")],
    ["a dashboard script", "/assets/app.js", {}],
    ["the dashboard page", "/models", {}],
  ])("are on %s", async (_what, path, headers) => {
    const res = await app.request(path, { headers });

    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("give the dashboard's page a policy of its own files only, with no inline script", async () => {
    const res = await app.request("/serve");
    const csp = res.headers.get("content-security-policy") ?? "";

    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe");
  });

  it("make API answers no-store, the token's one showing included", async () => {
    const res = await app.request("/api/v1/tokens", {
      method: "POST",
      headers: as("admin", json),
      body: JSON.stringify({ name: "cached", role: "viewer" }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});

describe("a server error", () => {
  it("says nothing of its cause: no message, stack or SQL in the body", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const failing = vi
      .spyOn(api.deps.world, "snapshot")
      .mockRejectedValueOnce(new Error('syntax error at or near "select * from models where name = $1"'));

    const res = await app.request("/api/v1/models", { headers: as("viewer") });
    const text = await res.text();

    failing.mockRestore();
    log.mockRestore();
    expect(res.status).toBe(500);
    expect(JSON.parse(text)).toEqual({
      error: { code: "internal", message: "internal error; see the server log" },
    });
    expect(text).not.toMatch(/select|syntax|at .*:\d+/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

/** The routes that take a body (from the contract), with one each accepts, and who may send it. */
const BODIES = bodyCases();

/** Every object inside a body, as a key path: each is a place a stray field could be smuggled. */
function objectPaths(value: unknown, path: string[] = []): string[][] {
  if (typeof value !== "object" || value === null) return [];
  const maps = ["labels", "nodeSelector"];
  const here = Array.isArray(value) || maps.includes(path.at(-1) ?? "") ? [] : [path];
  return [...here, ...Object.entries(value).flatMap(([k, v]) => objectPaths(v, [...path, k]))];
}

function withStray(body: Record<string, unknown>, path: string[]): Record<string, unknown> {
  const copy: Record<string, unknown> = structuredClone(body);
  let at: Record<string, unknown> = copy;
  for (const key of path) at = at[key] as Record<string, unknown>;
  at.isAdmin = true;
  return copy;
}

describe("every body is strict at every depth (no mass assignment)", () => {
  it("has a sample body for every route that takes one (add it to test/security-bodies.ts)", () => {
    expect(unsampled()).toEqual([]);
  });

  const cases = BODIES.flatMap(({ key, method, path, role, body }) =>
    objectPaths(body()).map((at) => ({
      key,
      method,
      path,
      role,
      body,
      at,
      field: [...at, "isAdmin"].join("."),
    })),
  );

  it.each(cases)("$key refuses $field", async ({ method, path, role, body, at, field }) => {
    const before = await storeDump(api.deps, api.control);
    const res = await app.request(path, {
      method,
      headers: as(role, { ...json, "if-match": '"1"' }),
      body: JSON.stringify(withStray(body(), at)),
    });

    expect((await errorOf(res, 400)).fields).toMatchObject({ [field]: "not a field of this request" });
    expect(await storeDump(api.deps, api.control)).toBe(before);
  });

  it("refuses a key named __proto__ where free keys are allowed, naming it", async () => {
    const beat = heartbeat();
    const body = JSON.stringify(beat).replace('"labels":{}', '"labels":{"__proto__":"x"}');
    expect(body).toContain("__proto__");
    const res = await app.request("/api/v1/agents/heartbeat", {
      method: "POST",
      headers: as("agent", json),
      body,
    });

    expect((await errorOf(res, 400)).fields).toEqual({
      "node.labels.__proto__": "not a field of this request",
    });
  });
});

describe("bodies", () => {
  it.each(BODIES)(
    "$key accepts only application/json (415 otherwise)",
    async ({ method, path, role, body }) => {
      for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]) {
        const res = await app.request(path, {
          method,
          headers: as(role, { "content-type": type }),
          body: JSON.stringify(body()),
        });
        expect((await errorOf(res, 415)).fields, type).toEqual({ body: "expected application/json" });
      }
    },
  );

  it("names the body when it is not JSON at all", async () => {
    const res = await app.request("/api/v1/models", {
      method: "POST",
      headers: as("operator", json),
      body: "{",
    });
    expect((await errorOf(res, 400)).fields).toHaveProperty("body");
  });

  it("stops at 1 MiB (413) before reading further", async () => {
    const body = JSON.stringify({ ...modelInput(), description: "x".repeat(1024 * 1024) });
    const res = await app.request("/api/v1/models", { method: "POST", headers: as("operator", json), body });
    expect((await errorOf(res, 413)).code).toBe("payload_too_large");
  });
});

describe("server-side request forgery", () => {
  // Exempt, by name: the request path's upstream pools (SPEC §7), which connect only to the
  // `endpoint` of a managed `ready` replica, as the agent trusted with that node reported it; and
  // the server's own listener (node:http's createServer: it accepts connections, opens none); and
  // pulls (SPEC §10), only to the Hub the operator configured (huggingface.endpoint, HF_ENDPOINT), at
  // a path built from a checked repo name, and to where the Hub redirects its downloads. (The
  // stand-in engines and Hub are not the server's code: @llmgw/simulation and the API's test kit.)
  const EXEMPT = new Set([
    "apps/api/src/gateway/upstream.ts",
    "apps/api/src/listen.ts",
    "apps/api/src/huggingFace/hubHttp.ts",
  ]);

  it("cannot happen: the server's code opens no outbound connection (no fetch, http client or socket)", () => {
    const roots = [
      "apps/api/src",
      "packages/store/src",
      "packages/domain/src",
      "packages/contract/src",
      "packages/log/src",
    ];
    const repo = fileURLToPath(new URL("../../../", import.meta.url));
    // `fetch(` alone or on globalThis; an app's own `.fetch(request)` answers a request that came in.
    const outbound =
      /(?<![\w.])fetch\s*\(|\bglobalThis\.fetch\b|from "node:(https?|net|tls|dgram|http2)"|require\("(https?|net)"\)|\bundici\b|\baxios\b|new WebSocket\b/;
    const hits: string[] = [];
    for (const root of roots) {
      for (const file of readdirSync(join(repo, root), { recursive: true, encoding: "utf8" })) {
        if (!file.endsWith(".ts") || file.endsWith(".test.ts") || EXEMPT.has(`${root}/${file}`)) continue;
        readFileSync(join(repo, root, file), "utf8")
          .split("\n")
          .forEach((line, i) => {
            // A type-only import (AddressInfo from node:net) is erased at build and connects nothing.
            if (outbound.test(line) && !/^import type /.test(line))
              hits.push(`${root}/${file}:${i + 1}: ${line.trim()}`);
          });
      }
    }
    // A model's `source` and a mirror's baseUrl are URLs handed to agents and engines, never fetched here.
    expect(hits).toEqual([]);
  });
});

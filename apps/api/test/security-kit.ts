import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiErrorSchema } from "@llmgw/domain";
import type { Store } from "@llmgw/store";
import { expect } from "vitest";
import { z } from "zod";
import { createApp, requestPathOf } from "../src/app";
import { isEndpoint, ruleKey } from "../src/auth/rules";
import { newToken, sha256Hex } from "../src/auth/secrets";
import type { Role } from "../src/config";
import { Control } from "../src/control/control";
import type { Deps } from "../src/deps";
import { onRequestPath } from "../src/gateway/errors";
import type { App } from "./harness";

// What the security tests share: a token of every role declared in llmgw.yaml, the app's endpoint
// list read from the app itself, and a dump of everything stored, to show a refusal changed nothing.

export const ROLES = ["viewer", "operator", "admin", "agent", "client"] as const satisfies readonly Role[];

/** One secret per role, made fresh per test process; the yaml declares only their hashes. */
export const SECRETS: Readonly<Record<Role, string>> = Object.fromEntries(
  ROLES.map((role) => [role, newToken()]),
) as Record<Role, string>;

export const configName = (role: Role) => `cfg-${role}`;

/** What the file's client token may do: a short list and both limits, so the file's form is exercised. */
export const CONFIG_CLIENT_LIMITS = { models: ["acl-chat"], requestsPerMinute: 600, concurrency: 8 };

/** The `tokens:` of llmgw.yaml for `useApi({ yaml })`. */
export function tokensYaml(): string {
  const { models, requestsPerMinute, concurrency } = CONFIG_CLIENT_LIMITS;
  const extra: Partial<Record<Role, string>> = {
    client: `, models: [${models.join(", ")}], requestsPerMinute: ${requestsPerMinute}, concurrency: ${concurrency}`,
  };
  const lines = ROLES.map(
    (role) =>
      `  - { name: ${configName(role)}, role: ${role}, sha256: ${sha256Hex(SECRETS[role])}${extra[role] ?? ""} }`,
  );
  return `tokens:\n${lines.join("\n")}\n`;
}

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

/** One request to `app` with a bearer token, and a JSON body when there is one. */
export function requestAs(app: App, secret: string, method: string, path: string, body?: unknown) {
  return app.request(path, {
    method,
    headers: { ...bearer(secret), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

let dashboard: string | null = null;

/**
 * A built dashboard of one page, so the static routes are registered and can be called. One per
 * process; `removeDashboard` (a test file's afterAll, or the process's exit) deletes it.
 */
export function dashboardDir(): string {
  if (dashboard) return dashboard;
  const dir = mkdtempSync(join(tmpdir(), "llmgw-web-"));
  mkdirSync(join(dir, "assets"));
  writeFileSync(
    join(dir, "index.html"),
    '<!doctype html><script type="module" src="/assets/app.js"></script>',
  );
  writeFileSync(join(dir, "assets", "app.js"), "console.log('llmgw')");
  process.once("exit", removeDashboard);
  dashboard = dir;
  return dir;
}

export function removeDashboard(): void {
  if (dashboard) rmSync(dashboard, { recursive: true, force: true });
  dashboard = null;
}

export type Endpoint = { key: string; method: string; path: string };

/**
 * Every endpoint the app answers, once each: what Hono registers (validators share their route's
 * key), then the request path's own routes (/v1 never reaches Hono's router).
 */
export function endpointsOf(app: App): Endpoint[] {
  const seen = new Map<string, Endpoint>();
  const routes = [...app.routes.filter(isEndpoint), ...(requestPathOf(app)?.routes ?? [])];
  for (const route of routes) {
    const key = ruleKey(route);
    if (!seen.has(key)) seen.set(key, { key, method: route.method, path: route.path });
  }
  return [...seen.values()];
}

/**
 * The app's route table without a store: createApp only registers routes, so the list is known when
 * the tests are collected (one test per route). The tests then check the real app has the same list.
 */
export function routeListing(): Endpoint[] {
  const deps = { store: { events: {} }, hub: {}, mirror: {} } as unknown as Deps;
  return endpointsOf(createApp(deps, new Control(deps), { webDist: dashboardDir() }));
}

/**
 * The endpoint that runs for `method path`: Hono's, as the authorization middleware reads its rule,
 * or under /v1 the request path's, as its own app reads the route's need.
 */
export function endpointFor(app: App, method: string, path: string): string | null {
  if (onRequestPath(path)) return requestPathOf(app)?.endpointOf(method, path)?.key ?? null;
  const [matched] = app.router.match(method === "HEAD" ? "GET" : method, path);
  const route = matched.map(([[, r]]) => r).find(isEndpoint);
  return route ? ruleKey(route) : null;
}

/**
 * Everything the server keeps, as one string: every repository's list, the audit log, the last event
 * id, tokens and sessions, and the in-memory facts (wakes, last-seen). Equal strings before and after
 * a refused request mean it changed nothing, byte for byte.
 */
export async function storeDump(
  deps: Deps,
  control: { readonly wakes: ReadonlyMap<string, number> },
): Promise<string> {
  const store: Store = deps.store;
  const dump = {
    models: await store.models.list(),
    nodes: await store.nodes.list(),
    replicas: await store.replicas.list(),
    quotas: await store.quotas.list(),
    classes: await store.classes.list(),
    mirror: await store.mirror.list(),
    audit: await store.audit.list({ limit: 1_000_000 }),
    lastEvent: await store.events.latestId(),
    tokens: await store.tokens.list(),
    sessions: await store.sessions.list(),
    wakes: [...control.wakes],
    lastSeen: [...deps.world.lastSeen],
  };
  return JSON.stringify(dump);
}

/** OpenAI's error shape, which the request path answers in (SPEC §7.6). */
export const openAiErrorSchema = z.strictObject({
  error: z.strictObject({ message: z.string(), type: z.string(), code: z.string(), param: z.null() }),
});

/** A refusal in the one error shape (OpenAI's on /v1); a 401 says how to authenticate. */
export async function expectRefusal(res: Response, status: number, what: string): Promise<void> {
  const text = await res.text();
  expect({ what, status: res.status, text }).toMatchObject({ status });
  const body: unknown = JSON.parse(text);
  // The request path (/v1) refuses in OpenAI's shape, which its clients' SDKs read.
  const parsed = apiErrorSchema.safeParse(body).success
    ? { success: true }
    : openAiErrorSchema.safeParse(body);
  expect(parsed.success, `${what}: not the error shape: ${text}`).toBe(true);
  if (status === 401) expect(res.headers.get("www-authenticate"), what).toMatch(/^Bearer realm="llmgw"/);
}

import { apiErrorSchema } from "@llmgw/domain";
import fc from "fast-check";
import type { Role } from "../src/config";
import type { Control } from "../src/control/control";
import type { Deps } from "../src/deps";
import { onRequestPath } from "../src/gateway/errors";
import { heartbeat, modelInput } from "./factories";
import type { App } from "./harness";
import { badRequests, FIXTURE, type FuzzRequest } from "./security-fuzz";
import { bearer, endpointsOf, openAiErrorSchema, SECRETS, storeDump } from "./security-kit";

// Sends generated bad requests to an app and checks every answer: no 5xx, security headers, the
// error shape (with `fields` on a 400), no internals in a body, and no change-making request
// accepted. The store is dumped before and after: the two must be the same string.

export type FuzzStats = { requests: number; statuses: Record<string, number>; kinds: Record<string, number> };

export type FuzzResult = { stats: FuzzStats; before: string; after: string };

async function call(app: App, role: Role, method: string, path: string, body?: unknown): Promise<void> {
  const res = await app.request(path, {
    method,
    headers: { ...bearer(SECRETS[role]), "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`seeding ${method} ${path}: ${res.status} ${await res.text()}`);
  await res.body?.cancel();
}

/** Something to aim at: a model, a node, a quota and a runtime token the requests may name. */
export async function seedFuzzWorld(app: App): Promise<void> {
  await call(app, "operator", "POST", "/api/v1/models", {
    ...modelInput({ scaling: { min: 0, max: 1 } }),
    name: FIXTURE.model,
  });
  await call(app, "agent", "POST", "/api/v1/agents/heartbeat", heartbeat({ node: { name: FIXTURE.node } }));
  await call(app, "admin", "PUT", `/api/v1/quotas/${FIXTURE.owner}`, {
    memoryGB: 64,
    cpuCores: null,
    gpus: null,
    replicas: 4,
  });
  await call(app, "admin", "POST", "/api/v1/tokens", { name: "fuzz-fixture-token", role: "viewer" });
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
const STACK_OR_SQL =
  /\bat [^\n]+:\d+:\d+|node_modules|\b(select|insert into|delete from|update)\b[^\n]*\b(from|values|where|set)\b/i;

/** What is wrong with this answer to this request; empty when nothing is. */
export async function problemsOf(req: FuzzRequest, res: Response): Promise<string[]> {
  const problems: string[] = [];
  const path = new URL(req.path, "http://localhost").pathname;
  // Signing out without a session is the one change-making request that is never refused.
  const mustRefuse = !SAFE.has(req.method) && !(req.method === "DELETE" && path === "/api/v1/session");
  if (res.status >= 500) problems.push(`answered ${res.status}`);
  if (res.headers.get("x-content-type-options") !== "nosniff") problems.push("no security headers");
  if (mustRefuse && res.status < 400) problems.push(`a change was accepted (${res.status})`);
  if (res.status < 400 || req.method === "HEAD") {
    await res.body?.cancel();
    return problems;
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    problems.push(`a refusal that is not JSON: ${text.slice(0, 80)}`);
  }
  const parsed = apiErrorSchema.safeParse(body);
  // The request path (/v1) refuses in OpenAI's shape instead (SPEC §7.6).
  const shaped = parsed.success || (onRequestPath(path) && openAiErrorSchema.safeParse(body).success);
  if (body !== null && !shaped) problems.push(`not the error shape: ${text.slice(0, 120)}`);
  // Counted on the raw JSON: a schema's record would drop a field the client called `__proto__`.
  if (parsed.success && res.status === 400 && fieldNames(body).length === 0) {
    problems.push(`a 400 that names no field: ${parsed.data.error.message}`);
  }
  if (STACK_OR_SQL.test(text)) problems.push(`internals in the body: ${text.slice(0, 200)}`);
  if (res.status === 401 && !res.headers.get("www-authenticate"))
    problems.push("a 401 without WWW-Authenticate");
  if (res.status === 429 && !res.headers.get("retry-after")) problems.push("a 429 without Retry-After");
  return problems;
}

function fieldNames(body: unknown): string[] {
  const error = isRecord(body) ? body.error : null;
  return isRecord(error) && isRecord(error.fields) ? Object.keys(error.fields) : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(req: FuzzRequest): string {
  const body =
    req.body === undefined ? "" : ` body ${req.body.slice(0, 200)}${req.body.length > 200 ? "…" : ""}`;
  return `${req.kind}\n  ${req.method} ${req.path.slice(0, 200)} ${JSON.stringify(req.headers).slice(0, 300)}${body}`;
}

/**
 * Seeds the world, dumps the store, sends `runs` generated bad requests (each checked as it is
 * answered; the first problem fails the property, and fast-check reports the seed to replay it),
 * then dumps the store again. `seed` replays a run.
 */
export async function fuzz(
  app: App,
  deps: Deps,
  control: Control,
  runs: number,
  seed?: number,
): Promise<FuzzResult> {
  await seedFuzzWorld(app);
  const before = await storeDump(deps, control);
  const stats: FuzzStats = { requests: 0, statuses: {}, kinds: {} };
  const property = fc.asyncProperty(badRequests(endpointsOf(app)), async (req) => {
    const res = await app.request(req.path, {
      method: req.method,
      headers: req.headers,
      ...(req.body === undefined ? {} : { body: req.body }),
    });
    stats.requests += 1;
    stats.statuses[res.status] = (stats.statuses[res.status] ?? 0) + 1;
    const kind = req.kind.split(/[ :]/)[0] ?? req.kind;
    stats.kinds[kind] = (stats.kinds[kind] ?? 0) + 1;
    const problems = await problemsOf(req, res);
    if (problems.length > 0) throw new Error(`${problems.join("; ")}\n${describe(req)}`);
  });
  await fc.assert(property, { numRuns: runs, ...(seed === undefined ? {} : { seed }), endOnFailure: true });
  return { stats, before, after: await storeDump(deps, control) };
}

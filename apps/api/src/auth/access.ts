import type { Role } from "../config";

// Browser-safe (no Node, no Hono): the dashboard imports this module (`@llmgw/api/access`) to hide
// what the signed-in role may not do, from the very table the server enforces.

/**
 * The least a route asks of the caller. `agent` is not a rank: only agent tokens have it.
 * `weights` is the mirror's files: every reader, and agents too, which fetch them for their node.
 * `inference` is the request path (`/v1/*`, SPEC §7): client tokens, and operators and admins.
 */
export type Need = "public" | "viewer" | "operator" | "admin" | "agent" | "weights" | "inference";

/**
 * Who may call what: every endpoint the app registers, by method and route pattern, with the least
 * it asks (SPEC §4 "Tokens and roles"). One table, read by one middleware in front of every route,
 * so handlers hold no authorization of their own. A route missing here is refused to all but admins
 * (fail closed), and the security test fails, naming it.
 */
export const ACCESS: Readonly<Record<string, Need>> = {
  // Signing in and out, liveness, and the dashboard's own files: before anyone has a session.
  "POST /api/v1/session": "public",
  "DELETE /api/v1/session": "public",
  "GET /healthz": "public",
  "GET /*": "public",
  "GET /api/v1/session": "viewer",

  // Reading: every GET.
  "GET /api/v1/models": "viewer",
  "GET /api/v1/models/:name": "viewer",
  "GET /api/v1/models/:name/headroom": "viewer",
  "GET /api/v1/headroom": "viewer",
  "GET /api/v1/capacity": "viewer",
  "GET /api/v1/classes": "viewer",
  "GET /api/v1/fleet/nodes": "viewer",
  "GET /api/v1/fleet/replicas": "viewer",
  "GET /api/v1/mirror": "viewer",
  "GET /api/v1/mirror/:model/:version/plan": "viewer",
  "GET /api/v1/quotas": "viewer",
  "GET /api/v1/audit": "viewer",
  "GET /api/v1/events": "viewer",
  "GET /api/v1/openapi.json": "viewer",
  "GET /metrics": "viewer",
  // The mirror's weights: readers, and agents, which download them with their token so that the
  // engines they start never need one (SPEC §8). Its 404 for other paths is the same to both.
  "GET /mirror/:model/:version/": "weights",
  "GET /mirror/:model/:version": "weights",
  "GET /mirror/:model/:version/:file": "weights",
  "ALL /mirror/:model/*": "weights",
  // An /api path no route answers: the 404 is for those who may read.
  "ALL /api/*": "viewer",

  // The catalogue and serving.
  "POST /api/v1/models": "operator",
  "PATCH /api/v1/models/:name": "operator",
  "DELETE /api/v1/models/:name": "operator",
  "POST /api/v1/models/:name/target": "operator",
  "POST /api/v1/models/:name/wake": "operator",
  "POST /api/v1/fleet/nodes/:name/drain": "operator",
  "POST /api/v1/fleet/nodes/:name/resume": "operator",
  "DELETE /api/v1/fleet/nodes/:name": "operator",

  // Quotas, classes and tokens.
  "PUT /api/v1/quotas/:owner": "admin",
  "GET /api/v1/tokens": "admin",
  "POST /api/v1/tokens": "admin",
  "DELETE /api/v1/tokens/:name": "admin",

  // The request path (SPEC §7): client tokens, operators and admins. Any other POST naming a model
  // is routed like the three; another method or path is a 404 for those who may call the path.
  "GET /v1/models": "inference",
  "GET /v1/models/:model": "inference",
  "POST /v1/chat/completions": "inference",
  "POST /v1/completions": "inference",
  "POST /v1/embeddings": "inference",
  "POST /v1/*": "inference",
  "ALL /v1/*": "inference",

  // Agents report their node; that and the mirror's weights are all an agent token opens.
  "POST /api/v1/agents/heartbeat": "agent",
};

/** What a route asks when the table has no line for it. */
export const UNLISTED: Need = "admin";

const RANK = { viewer: 1, operator: 2, admin: 3 } as const;

/**
 * admin ⊇ operator ⊇ viewer; agent is beside them, not below: it may post heartbeats and read the
 * mirror's weights, and nothing else; client likewise may only call the request path.
 */
export function allows(role: Role, need: Need): boolean {
  if (need === "public") return true;
  if (need === "weights") return role === "agent" || allows(role, "viewer");
  if (need === "inference") return role === "client" || allows(role, "operator");
  if (need === "agent" || role === "agent") return role === need;
  if (role === "client") return false;
  return RANK[role] >= RANK[need];
}

/** Whether `role` may call the endpoint `key` ("PATCH /api/v1/models/:name"). */
export function mayCall(role: Role, key: string): boolean {
  return allows(role, ACCESS[key] ?? UNLISTED);
}

import { keyOf, ROUTES } from "./contract";
import type { Need } from "./need";
import type { Route } from "./route";
import type { Role } from "./tokenRules";

// Browser-safe (no Node, no Hono): the dashboard imports this module (`@llmgw/contract`) to hide
// what the signed-in role may not do, from the very table the server enforces.

export type { Need } from "./need";

/**
 * Who may call what: every route the contract declares, by method and route pattern, with the least
 * it asks (SPEC §4 "Tokens and roles"). Read by one middleware in front of every route, so handlers
 * hold no authorization of their own. The server registers only the contract's routes, so none can
 * miss a line; one that did would be refused to all but admins (fail closed).
 */
export const ACCESS: Readonly<Record<string, Need>> = Object.fromEntries(
  ROUTES.map((r) => [keyOf(r), r.need]),
);

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

/** Whether `role` may call a route of the contract (`contract.models.patch`). */
export function mayCall(role: Role, route: Pick<Route, "need">): boolean {
  return allows(role, route.need);
}

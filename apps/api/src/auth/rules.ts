import { ACCESS, type Need, UNLISTED } from "@llmgw/contract";
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";
import type { RouterRoute } from "hono/types";

// Which endpoint a request will reach, so the ACCESS table is read for the route Hono actually
// runs: a path the table does not name cannot slip past it.

export const ruleKey = (route: Pick<RouterRoute, "method" | "path">) => `${route.method} ${route.path}`;

/** A handler `app.route()` wrapped in its sub-app's error handler, unwrapped (as hono/dev does). */
function innermost(handler: RouterRoute["handler"]): RouterRoute["handler"] {
  const inner = (handler as { __COMPOSED_HANDLER?: RouterRoute["handler"] }).__COMPOSED_HANDLER;
  return inner ? innermost(inner) : handler;
}

/**
 * Whether a registered route answers requests (an endpoint) rather than passing them on. `app.use()`
 * registers method ALL with a `(c, next)` function; every method-specific route is an endpoint
 * (its validators share its path), and an `app.all()` one is when its handler takes no `next`.
 */
export function isEndpoint(route: Pick<RouterRoute, "method" | "handler">): boolean {
  return route.method !== "ALL" || innermost(route.handler).length < 2;
}

/**
 * The endpoint that will answer this request: the first one Hono matched after the middleware
 * asking. Null when none will (Hono's own 404, for a path outside /api that nothing serves).
 */
export function endpointOf(c: Context): RouterRoute | null {
  const routes = matchedRoutes(c);
  for (let i = c.req.routeIndex + 1; i < routes.length; i++) {
    const route = routes[i];
    if (route && isEndpoint(route)) return route;
  }
  return null;
}

/** The least this request's endpoint asks; an unlisted endpoint asks for an admin. */
export function needOf(route: RouterRoute | null): Need {
  if (route === null) return "public";
  return ACCESS[ruleKey(route)] ?? UNLISTED;
}

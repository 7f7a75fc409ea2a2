import type { CheckedInputOf, OutputOf, Route, RouteGroup } from "@llmgw/contract";
import type { Context, Hono, MiddlewareHandler, TypedResponse } from "hono";
import type { JSONParsed } from "hono/utils/types";
import type { z } from "zod";
import { Body, sendBody } from "../body";
import type { AppEnv } from "../env";
import { jsonBody, queryOf } from "../validate";

/**
 * What a handler answers. A route whose contract has a JSON schema answers a value of it (sent with
 * the contract's status), a prepared `Body` of it, or `c.json` of it; so a handler that drifts from
 * the contract fails the type check. Other routes (204s, streams, files) answer a Response, or
 * null for the contract's body-less status.
 */
export type Result<R extends Route> = R["ok"] extends { schema: z.ZodType }
  ? OutputOf<R> | Body<OutputOf<R>> | (Response & TypedResponse<JSONParsed<OutputOf<R>>>)
  : Response | null;

export type Handler<R extends Route> = (
  c: Context<AppEnv>,
  input: CheckedInputOf<R>,
) => Result<R> | Promise<Result<R>>;

/** A handler, or one with middleware that must run before its input is read (a rate limit). */
export type Implementation<R extends Route> =
  | Handler<R>
  | { before: readonly MiddlewareHandler<AppEnv>[]; handle: Handler<R> };

/** A handler for every route of a group, and nothing else: one missing or extra fails the type check. */
export type Handlers<G extends RouteGroup> = { readonly [K in keyof G]: Implementation<G[K]> };

/** A contract route with what answers it, ready to register. */
export type Served = {
  readonly route: Route;
  readonly before: readonly MiddlewareHandler<AppEnv>[];
  readonly handle: Handler<Route>;
};

/** Pairs a resource's routes with their handlers. */
export function handlers<G extends RouteGroup>(group: G, implementation: Handlers<G>): Served[] {
  return Object.entries(group).map(([name, route]) => {
    const given = implementation[name as keyof G] as Implementation<Route>;
    return typeof given === "function"
      ? { route, before: [], handle: given }
      : { route, before: given.before, handle: given.handle };
  });
}

/**
 * Registers each route with Hono in the order given: its own middleware, then the checks of its
 * query and body from the contract's schemas, then the handler, whose answer is sent as the
 * contract says.
 */
export function register(app: Hono<AppEnv>, served: readonly Served[]): void {
  for (const { route, before, handle } of served) {
    const checks: MiddlewareHandler<AppEnv>[] = [];
    if (!route.checkedByHandler) {
      if (route.query) checks.push(queryOf(route.query) as unknown as MiddlewareHandler<AppEnv>);
      if (route.body) checks.push(jsonBody(route.body) as unknown as MiddlewareHandler<AppEnv>);
    }
    // The request path's POSTs take no parameters: their answer costs no parameter object.
    const hasParams = route.path.includes(":");
    const endpoint = async (c: Context<AppEnv>): Promise<Response> => {
      const input = {
        param: hasParams ? c.req.param() : {},
        query: route.query && !route.checkedByHandler ? c.req.valid("query" as never) : undefined,
        body: route.body && !route.checkedByHandler ? c.req.valid("json" as never) : undefined,
      } as CheckedInputOf<Route>;
      const result: unknown = await handle(c, input);
      if (result instanceof Response) return result;
      if (result instanceof Body) return sendBody(c, result);
      if (result === null || result === undefined) return c.body(null, route.ok.status);
      return c.json(result, route.ok.status === 204 ? 200 : route.ok.status);
    };
    app.on(route.method, [route.path], ...before, ...checks, endpoint);
  }
}

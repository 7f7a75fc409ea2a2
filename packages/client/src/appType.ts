import type { Contract, OutputOf, ParamsOf, Route } from "@llmgw/contract";
import type { Hono } from "hono";
import type { BlankEnv } from "hono/types";
import type { StatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";
import type { z } from "zod";

// Hono's typed client (`hc<AppType>(".../api/v1")`) over the contract: the paths, parameters,
// bodies and answers of /api/v1 as the routes declare them, so a caller drifting from the contract
// fails the type check. Derived from the same route objects the server registers.

type UnderApi<Path extends string> = Path extends `/api/v1${infer Rest}` ? Rest : never;

type QueryOf<R extends Route> = R extends { query: z.ZodType }
  ? { query: { [K in keyof z.input<R["query"]>]?: string | undefined } }
  : Nothing;
type JsonOf<R extends Route> = R extends { checkedByHandler: true }
  ? Nothing
  : R extends { body: z.ZodType }
    ? { json: z.input<R["body"]> }
    : Nothing;
type ParamOf<R extends Route> = keyof ParamsOf<R["path"]> extends never
  ? Nothing
  : { param: ParamsOf<R["path"]> };
type Nothing = Record<never, never>;

type EndpointOf<R extends Route> = {
  input: ParamOf<R> & QueryOf<R> & JsonOf<R>;
  output: OutputOf<R> extends undefined ? undefined : JSONParsed<OutputOf<R>>;
  outputFormat: OutputOf<R> extends undefined ? "body" : "json";
  status: StatusCode;
};

type SchemaOf<R> = R extends Route
  ? R extends { fallback: true }
    ? never
    : { [P in UnderApi<R["path"]>]: { [M in `$${Lowercase<R["method"]>}`]: EndpointOf<R> } }
  : never;

type RoutesOf<C> = { [G in keyof C]: C[G][keyof C[G]] }[keyof C];
type Intersected<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type Merged<T> = { [P in keyof T]: T[P] };

/** `/api/v1` as Hono's client sees it. */
export type AppType = Hono<BlankEnv, Merged<Intersected<SchemaOf<RoutesOf<Contract>>>>, "/">;

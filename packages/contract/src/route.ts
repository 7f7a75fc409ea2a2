import type { z } from "zod";
import type { Need } from "./need";

// Browser-safe (no Node, no Hono): the dashboard, `llmgw ctl`, the agent and the tests read the
// contract (`@llmgw/contract`) to call the API; the server reads the same objects to register,
// authorize and document every route. One route is written once, here.

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "ALL";

/** What a successful answer is: its status, and its body's schema when it is JSON. */
export type Answer = {
  status: 200 | 201 | 202 | 204;
  description: string;
  /** The JSON body; absent for 204 and for answers that are not JSON. */
  schema?: z.ZodType;
  /** An answer llmgw passes on rather than makes (an engine's): described, not typed. */
  passedOn?: z.ZodType;
  /** The media type when it is not JSON: an event stream, the metrics page, a file. */
  media?: "text/event-stream" | "text/plain" | "text/html" | "text/javascript" | "application/octet-stream";
};

/** A request header the route reads, for the API description (`If-Match`). */
export type HeaderParameter = { name: string; required: boolean; description: string };

/**
 * One route: where it is, who may call it (the least role, SPEC §4), what it takes and answers.
 * `path` is Hono's pattern, from the server's root (`/api/v1/models/:name`).
 */
export type Route = {
  readonly method: Method;
  readonly path: string;
  readonly need: Need;
  readonly summary: string;
  /** Query parameters, checked before the handler runs; problems name the parameter. */
  readonly query?: z.ZodType;
  /** The JSON body, checked before the handler runs (application/json only, no stray keys). */
  readonly body?: z.ZodType;
  /**
   * The handler reads its query and body itself (the request path parses only what it routes by,
   * and answers in OpenAI's shape): `query` and `body` then document them, nothing checks them first.
   */
  readonly checkedByHandler?: true;
  readonly headers?: readonly HeaderParameter[];
  readonly ok: Answer;
  /** The refusals this route can answer besides 401 and 403, which its `need` implies. */
  readonly refusals: readonly number[];
  /** A refusal whose body carries more than the error (the 409 of a refused target), by status. */
  readonly refusalBodies?: Readonly<Partial<Record<number, z.ZodType>>>;
  /**
   * Answers only a 404 for what no other route takes (`/api/*`): registered last, authorized like
   * its neighbours, and not an operation of the API description.
   */
  readonly fallback?: true;
  /** Outside /api: described with its own server root (`/v1`, `/mirror`, `/metrics`). */
  readonly root?: true;
};

/** A route as written, its literal path and schemas kept for the types derived from it. */
export const route = <const R extends Route>(definition: R): R => definition;

/** Path parameters of a Hono pattern: `/models/:name/target` → `{ name: string }`. */
export type ParamsOf<Path extends string> = Path extends `${string}:${infer Param}/${infer Rest}`
  ? { [K in Param]: string } & ParamsOf<`/${Rest}`>
  : Path extends `${string}:${infer Param}`
    ? { [K in Param]: string }
    : Record<never, never>;

type Has<R, K extends keyof Route> = R extends { [P in K]: z.ZodType } ? true : false;

/** What the handler has once the input is checked. */
export type CheckedInputOf<R extends Route> = R extends { checkedByHandler: true }
  ? { param: ParamsOf<R["path"]>; query: undefined; body: undefined }
  : {
      param: ParamsOf<R["path"]>;
      query: Has<R, "query"> extends true ? z.output<NonNullable<R["query"]>> : undefined;
      body: Has<R, "body"> extends true ? z.output<NonNullable<R["body"]>> : undefined;
    };

/** The body of a successful answer: what the route's schema makes, or nothing. */
export type OutputOf<R extends Route> = R["ok"] extends { schema: z.ZodType }
  ? z.output<R["ok"]["schema"]>
  : undefined;

/** A group of routes by operation name (`models.get`), as a resource's contract file exports them. */
export type RouteGroup = Readonly<Record<string, Route>>;

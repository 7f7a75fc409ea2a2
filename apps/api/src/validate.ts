import type { MiddlewareHandler } from "hono";
import { validator } from "hono/validator";
import type { z } from "zod";
import { AppError, invalid } from "./errors";

type Validated<Target extends string, S extends z.ZodType> = {
  in: { [K in Target]: z.input<S> };
  out: { [K in Target]: z.output<S> };
};

/**
 * A JSON body checked by a domain schema. Only `application/json` is accepted: a form post from
 * another site cannot reach a mutation, and a missing body is an error rather than `{}`.
 */
export function jsonBody<S extends z.ZodType>(
  schema: S,
): MiddlewareHandler<never, string, Validated<"json", S>> {
  return validator("json", (value, c) => {
    const type = c.req.header("content-type") ?? "";
    if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type)) {
      throw new AppError(415, "bad_request", "send the body as JSON (Content-Type: application/json)", {
        body: "expected application/json",
      });
    }
    const result = schema.safeParse(value);
    if (!result.success) throw invalid(result.error);
    return result.data;
  }) as never;
}

/** Query parameters checked by a schema; problems name the parameter. */
export function queryOf<S extends z.ZodType>(
  schema: S,
): MiddlewareHandler<never, string, Validated<"query", S>> {
  return validator("query", (value) => {
    const result = schema.safeParse(value);
    if (!result.success) throw invalid(result.error, "the query");
    return result.data;
  }) as never;
}

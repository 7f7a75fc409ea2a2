import type { MiddlewareHandler } from "hono";
import { validator } from "hono/validator";
import type { z } from "zod";
import { AppError, badRequest, invalid } from "./errors";

type Validated<Target extends string, S extends z.ZodType> = {
  in: { [K in Target]: z.input<S> };
  out: { [K in Target]: z.output<S> };
};

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\b/i;

/**
 * A JSON body checked by a domain schema. Only `application/json` is accepted: a form post from
 * another site cannot reach a mutation, and a missing body is an error rather than `{}`. Keys the
 * schema does not know are refused at any depth (no mass assignment), even where a nested schema
 * would quietly drop them.
 */
export function jsonBody<S extends z.ZodType>(
  schema: S,
): MiddlewareHandler<never, string, Validated<"json", S>> {
  return validator("json", (value, c) => {
    const type = c.req.header("content-type") ?? "";
    if (!JSON_TYPE.test(type)) {
      throw new AppError(415, "bad_request", "send the body as JSON (Content-Type: application/json)", {
        body: "expected application/json",
      });
    }
    const result = schema.safeParse(value);
    if (!result.success) throw invalid(result.error);
    refuseStrays(value, result.data, "the request body");
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
    refuseStrays(value, result.data, "the query");
    return result.data;
  }) as never;
}

function refuseStrays(input: unknown, output: unknown, where: string): void {
  const fields = strayKeys(input, output);
  const names = Object.keys(fields);
  if (names.length === 0) return;
  throw badRequest(`${where} has fields this request does not take: ${names.slice(0, 3).join(", ")}`, fields);
}

/**
 * Keys present in what the client sent and absent from what the schema returned: a nested
 * `z.object` strips unknown keys silently, and a record drops `__proto__`. Compared by walking both
 * (JSON has only plain objects and arrays), so no schema needs rewriting to be strict.
 */
export function strayKeys(input: unknown, output: unknown): Record<string, string> {
  const found = new Map<string, string>();
  const walk = (sent: unknown, kept: unknown, path: string[]) => {
    if (Array.isArray(sent) && Array.isArray(kept)) {
      sent.forEach((item, i) => {
        walk(item, kept[i], [...path, String(i)]);
      });
    } else if (isRecord(sent) && isRecord(kept)) {
      for (const key of Object.keys(sent)) {
        if (Object.hasOwn(kept, key)) walk(sent[key], kept[key], [...path, key]);
        else found.set([...path, key].join("."), "not a field of this request");
      }
    }
  };
  walk(input, output, []);
  // fromEntries defines own keys, so a `__proto__` the client sent is named like any other.
  return Object.fromEntries(found);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

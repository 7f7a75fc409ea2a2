import { CONTROL_MESSAGE, hasControl, hasLoneSurrogate, SURROGATE_MESSAGE } from "@llmgw/domain";
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
      throw new AppError({
        status: 415,
        code: "bad_request",
        message: "send the body as JSON (Content-Type: application/json)",
        fields: {
          body: "expected application/json",
        },
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

/**
 * Path segments under the API, checked by the rule every body's text is: a name holding a control
 * character (NUL included) or a lone surrogate is a 400 before any route looks it up, so no
 * lookup that reaches the store can be refused there (PostgreSQL refuses NUL in text: a 500).
 */
export function textPath(): MiddlewareHandler {
  return async (c, next) => {
    const segments = new URL(c.req.url).pathname.split("/").map(decodedSegment);
    const bad = segments.find((s) => hasControl(s) || hasLoneSurrogate(s));
    if (bad !== undefined) {
      const problem = hasControl(bad) ? CONTROL_MESSAGE : SURROGATE_MESSAGE;
      throw badRequest(`the path is not valid: a name in it ${problem}`, { path: problem });
    }
    await next();
  };
}

/** As the router decodes a segment: one that is not valid percent-encoding is taken as it is. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

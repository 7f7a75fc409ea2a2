import type { ApiError, ErrorCode } from "@llmgw/domain";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";

/**
 * The /api edge's refusals (SPEC §3), each code's status: the one table they are answered from.
 * Every refusal answers in one shape, `{ error: { code, message, fields? } }` beside the refusal's
 * extra members, with its headers (`refuse`). The request path (/v1) answers in OpenAI's shape
 * from its own table (gateway/errors.ts).
 */
export const API_REFUSALS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  model_not_allowed: 403,
  not_found: 404,
  conflict: 409,
  name_taken: 409,
  replica_conflict: 409,
  quota_exceeded: 409,
  declared_in_config: 409,
  target_refused: 409,
  bench_running: 409,
  // SPEC §10.5: a pull from the Hugging Face Hub that cannot be made.
  repo_not_found: 404,
  gated: 403,
  no_matching_files: 404,
  no_space: 507,
  hub_unreachable: 502,
  unsafe_listing: 502,
  // SPEC §10.5a: a listing of the wrong kind, a Hub past its deadline, a mirror path not a folder.
  bad_listing: 502,
  hub_timeout: 504,
  path_taken: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  precondition_required: 428,
  rate_limited: 429,
  internal: 500,
  starting: 503,
  no_rollout: 409,
} as const satisfies Record<ErrorCode, ContentfulStatusCode>;

/** A refusal, by name: what `AppError` is made of. */
export type Refusal = {
  /** Only where it says more than the code's (API_REFUSALS): a 415 or a 416 is a `bad_request`. */
  status?: ContentfulStatusCode;
  code: ErrorCode;
  message: string;
  /** Dotted paths into the request (`profiles.0.minMemoryGB`) and what is wrong there. */
  fields?: Record<string, string> | undefined;
  /** Extra members of the body beside `error` (the 412's current model, say). */
  extra?: Record<string, unknown> | undefined;
  /** Response headers the refusal needs (WWW-Authenticate, Retry-After). */
  headers?: Record<string, string> | undefined;
};

/** The one error every service throws; the transport maps it to the one error shape once. */
export class AppError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: ErrorCode;
  readonly fields?: Record<string, string> | undefined;
  readonly extra?: Record<string, unknown> | undefined;
  readonly headers?: Record<string, string> | undefined;

  constructor({ status, code, message, fields, extra, headers }: Refusal) {
    super(message);
    this.status = status ?? API_REFUSALS[code];
    this.code = code;
    this.fields = fields;
    this.extra = extra;
    this.headers = headers;
  }
}

export const notFound = (what: string) =>
  new AppError({ code: "not_found", message: `${what} was not found` });

/**
 * 401: no credentials, or ones that do not check out. `WWW-Authenticate` says how to authenticate
 * (RFC 6750), with `invalid_token` when a token or session was presented and refused.
 */
export function unauthorized(message: string, presented: boolean, headers: Record<string, string> = {}) {
  const challenge = presented ? 'Bearer realm="llmgw", error="invalid_token"' : 'Bearer realm="llmgw"';
  return new AppError({
    code: "unauthorized",
    message,
    headers: {
      "WWW-Authenticate": challenge,
      ...headers,
    },
  });
}

/** 403: who is asking is known, and may not do this. */
export const forbidden = (message: string) => new AppError({ code: "forbidden", message });

export function badRequest(message: string, fields?: Record<string, string>): AppError {
  return new AppError({ code: "bad_request", message, fields });
}

/**
 * Zod issues keyed by their dotted path (`profiles.0.minMemoryGB`), one message per field. Built in
 * a Map: a client's key `__proto__` assigned to a plain object would vanish into its prototype and
 * leave a 400 that names no field.
 */
export function fieldsOf(error: z.ZodError, prefix: ReadonlyArray<PropertyKey> = []): Record<string, string> {
  const fields = new Map<string, string>();
  for (const issue of error.issues) {
    const keys =
      issue.code === "unrecognized_keys" ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
    for (const path of keys) {
      const key = [...prefix, ...path].map(String).join(".") || "body";
      if (!fields.has(key))
        fields.set(key, issue.code === "unrecognized_keys" ? "not a field of this request" : issue.message);
    }
  }
  return Object.fromEntries(fields);
}

export function invalid(error: z.ZodError, where = "the request body"): AppError {
  const fields = fieldsOf(error);
  const names = Object.keys(fields);
  const list = names.slice(0, 3).join(", ") + (names.length > 3 ? ` and ${names.length - 3} more` : "");
  return badRequest(`${where} is not valid: ${list}`, fields);
}

export function errorBody(err: AppError): ApiError & Record<string, unknown> {
  const error: ApiError["error"] = { code: err.code, message: err.message };
  if (err.fields) error.fields = err.fields;
  return { ...err.extra, error };
}

/** The /api edge's one answer to a refusal: its status, the one shape, its headers. */
export function refuse(c: Context, err: AppError): Response {
  return c.json(errorBody(err), err.status, err.headers);
}

/**
 * Any error as the refusal it answers with: known errors keep theirs; Hono's own become the codes
 * of the table; anything else is a 500 whose body says nothing of the cause (no message, stack or
 * SQL: requestId.ts logs those, with the request's id).
 */
export function asRefusal(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof HTTPException) {
    const status = err.status;
    // Hono's own 400 is a body its validator could not parse: name the body as the field.
    const fields = status === 400 ? { body: err.message } : undefined;
    const code = status === 413 ? "payload_too_large" : "bad_request";
    return new AppError({ status, code, message: err.message, fields });
  }
  if (isBodyTooLarge(err)) return new AppError({ code: "payload_too_large", message: "body too large" });
  return new AppError({ code: "internal", message: "internal error; see the server log" });
}

/** Hono's onError at the /api edge (and everywhere but the request path). */
export function respondError(err: unknown, c: Context): Response {
  return refuse(c, asRefusal(err));
}

function isBodyTooLarge(err: unknown): boolean {
  return err instanceof Error && err.name === "BodyLimitError";
}

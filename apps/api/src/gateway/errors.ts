import type { ErrorCode } from "@llmgw/domain";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AppError } from "../errors";

// The request path answers in OpenAI's error shape (SPEC §7.6), so an `openai` SDK raises its own
// error classes with our `code`; the control plane's /api keeps the one shape of SPEC §3. This is
// the /v1 edge's one table: every refusal there is answered from it, whoever raised it.

/** The request path's refusals, each code's status (SPEC §7.6, §7.5a). */
export const V1_REFUSALS = {
  invalid_request: 400,
  invalid_api_key: 401,
  forbidden: 403,
  model_not_allowed: 403,
  model_not_found: 404,
  not_found: 404,
  payload_too_large: 413,
  rate_limited: 429,
  budget_exceeded: 429,
  internal: 500,
  upstream_unavailable: 502,
  upstream_failed: 502,
  model_stopped: 503,
  queue_full: 503,
  wait_timeout: 503,
  no_capacity: 503,
  shutting_down: 503,
  upstream_timeout: 504,
} as const satisfies Record<string, ContentfulStatusCode>;

export type V1Code = keyof typeof V1_REFUSALS;

/**
 * The control plane's refusals that reach /v1 (the authorization shared with /api, a client
 * token's limits), in the request path's words. Any other code is `internal`.
 */
const FROM_API: Partial<Record<ErrorCode, V1Code>> = {
  unauthorized: "invalid_api_key",
  bad_request: "invalid_request",
  forbidden: "forbidden",
  model_not_allowed: "model_not_allowed",
  rate_limited: "rate_limited",
  not_found: "not_found",
  payload_too_large: "payload_too_large",
};

/** What /v1 answers when it refuses: `{ error: { message, type, code, param: null } }`. */
export type GatewayErrorBody = {
  error: { message: string; type: string; code: string; param: null };
};

/** A refusal of the request path, by name; its status is the table's. */
export class GatewayError extends Error {
  readonly code: V1Code;
  readonly status: ContentfulStatusCode;
  readonly headers: Readonly<Record<string, string>>;

  constructor(refusal: { code: V1Code; message: string; headers?: Record<string, string> }) {
    super(refusal.message);
    this.code = refusal.code;
    this.status = V1_REFUSALS[refusal.code];
    this.headers = refusal.headers ?? {};
  }
}

/** Seconds a client should wait before trying a 503 again: a replica takes a while to start. */
export const RETRY_AFTER_SECONDS = 5;

export function unavailable(
  code: "model_stopped" | "queue_full" | "wait_timeout" | "no_capacity" | "shutting_down",
  message: string,
  retryAfterSeconds = RETRY_AFTER_SECONDS,
): GatewayError {
  return new GatewayError({ code, message, headers: { "Retry-After": String(retryAfterSeconds) } });
}

export const invalidRequest = (message: string) => new GatewayError({ code: "invalid_request", message });

/**
 * Any error as the /v1 refusal it answers with: the request path's own as they are, the control
 * plane's renamed by FROM_API (keeping their headers: WWW-Authenticate, Retry-After, a cleared
 * session cookie), Hono's by status, and anything else a 500 that says nothing of its cause.
 */
export function asGatewayRefusal(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof AppError) {
    const code = FROM_API[err.code] ?? "internal";
    const message = code === "internal" ? "internal error; see the server log" : err.message;
    return new GatewayError({ code, message, ...(err.headers ? { headers: err.headers } : {}) });
  }
  if (err instanceof HTTPException)
    return new GatewayError({
      code: err.status === 413 ? "payload_too_large" : "invalid_request",
      message: err.message,
    });
  return new GatewayError({ code: "internal", message: "internal error; see the server log" });
}

/** OpenAI's `type` for a status: what its SDKs and docs use. */
function typeOf(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

export function gatewayErrorBody(err: GatewayError): GatewayErrorBody {
  return { error: { message: err.message, type: typeOf(err.status), code: err.code, param: null } };
}

/** An event stream's last event when it cannot go on (SPEC §7.5): the error in OpenAI's shape. */
export function errorEvent(err: GatewayError): Buffer {
  return Buffer.from(`data: ${JSON.stringify(gatewayErrorBody(err))}\n\n`);
}

/** Whether a path is the request path's (its own small app answers it, in OpenAI's shape). */
export const onRequestPath = (path: string) =>
  path === "/v1" || path.startsWith("/v1/") || path.startsWith("/v1?");

import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AppError } from "../errors";

// The request path answers in OpenAI's error shape (SPEC §7.6), so an `openai` SDK raises its own
// error classes with our `code`; the control plane's /api keeps the one shape of SPEC §3.

/** What /v1 answers when it refuses: `{ error: { message, type, code, param: null } }`. */
export type GatewayErrorBody = {
  error: { message: string; type: string; code: string; param: null };
};

/** A refusal of the request path; `code` is OpenAI's vocabulary, not the control plane's. */
export class GatewayError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Seconds a client should wait before trying a 503 again: a replica takes a while to start. */
export const RETRY_AFTER_SECONDS = 5;

export function unavailable(code: string, message: string, retryAfterSeconds = RETRY_AFTER_SECONDS) {
  return new GatewayError(503, code, message, { "Retry-After": String(retryAfterSeconds) });
}

export const invalidRequest = (message: string) => new GatewayError(400, "invalid_request", message);

/** OpenAI's `type` for a status: what its SDKs and docs use. */
function typeOf(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

export function gatewayErrorBody(status: number, code: string, message: string): GatewayErrorBody {
  return { error: { message, type: typeOf(status), code, param: null } };
}

/** Whether a path is the request path's (its refusals take OpenAI's shape). */
export const onRequestPath = (path: string) => path === "/v1" || path.startsWith("/v1/");

/**
 * Any error thrown on /v1, the authorization middleware's included, in OpenAI's shape: a 401 is
 * `invalid_api_key` (its WWW-Authenticate kept), the rest keep their status, code and headers.
 */
export function respondGatewayError(err: unknown, c: Context): Response {
  if (err instanceof GatewayError)
    return c.json(gatewayErrorBody(err.status, err.code, err.message), err.status, err.headers);
  if (err instanceof AppError) {
    const code = err.status === 401 ? "invalid_api_key" : err.code;
    return c.json(gatewayErrorBody(err.status, code, err.message), err.status, err.headers);
  }
  if (err instanceof HTTPException) {
    const code = err.status === 413 ? "payload_too_large" : "invalid_request";
    return c.json(gatewayErrorBody(err.status, code, err.message), err.status);
  }
  return c.json(gatewayErrorBody(500, "internal", "internal error; see the server log"), 500);
}

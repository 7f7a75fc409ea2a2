import { randomUUID } from "node:crypto";
import type { Logger } from "@llmgw/log";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./env";
import { setHeaders } from "./setHeaders";

export const REQUEST_ID_HEADER = "X-Request-Id";

/** An id a proxy or client sent is kept when it is a plain token; anything else could forge log text. */
const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Names every request: the client's `X-Request-Id` when it is sane, a new UUID otherwise, on the
 * context for log lines and back in the answer's `X-Request-Id`, refusals and errors included.
 * A request that ends in a 5xx is logged here, once, with its id; a successful one is not (the
 * request path is latency-benchmarked, and /metrics counts them). On /v1 it runs inside
 * `sendDirectly`, so the header lands on the head that middleware adjusts before it is written.
 */
export function requestId(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = requestIdOf(c.req.header(REQUEST_ID_HEADER));
    c.set("requestId", id);
    await next();
    setHeaders(c, (headers) => headers.set(REQUEST_ID_HEADER, id));
    if (c.res.status >= 500)
      logFailure(
        log,
        { requestId: id, method: c.req.method, path: c.req.path, status: c.res.status },
        c.error,
      );
  };
}

/** The client's id when it is sane, else a new one. */
export function requestIdOf(incoming: string | undefined): string {
  return incoming !== undefined && SANE_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * A 500 with an error is a bug or an outage whose cause the body hides ("see the server log"): its
 * error goes here with the stack. Other 5xx (no replica ready, an engine's failure) are refusals
 * the server meant, worth a line without one.
 */
export function logFailure(
  log: Logger,
  fields: { requestId: string; method: string; path: string; status: number },
  error: Error | undefined,
): void {
  if (error && fields.status === 500) log.error({ ...fields, err: error }, "unexpected error");
  else log.warn({ ...fields, reason: error?.message }, "request not served");
}

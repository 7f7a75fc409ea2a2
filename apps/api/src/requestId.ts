import { randomUUID } from "node:crypto";
import type { Logger } from "@llmgw/log";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./env";

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
    const incoming = c.req.header(REQUEST_ID_HEADER);
    const id = incoming !== undefined && SANE_ID.test(incoming) ? incoming : randomUUID();
    c.set("requestId", id);
    await next();
    setHeader(c, id);
    if (c.res.status >= 500) logFailure(log, c, id);
  };
}

function setHeader(c: Context, id: string): void {
  try {
    c.res.headers.set(REQUEST_ID_HEADER, id);
  } catch {
    // A response with immutable headers (one passed through from fetch): copy it, then set.
    const copy = new Response(c.res.body, c.res);
    copy.headers.set(REQUEST_ID_HEADER, id);
    c.res = undefined;
    c.res = copy;
  }
}

/**
 * A 500 with an error is a bug or an outage whose cause the body hides ("see the server log"): its
 * error goes here with the stack. Other 5xx (no replica ready, an engine's failure) are refusals
 * the server meant, worth a line without one.
 */
function logFailure(log: Logger, c: Context, requestId: string): void {
  const fields = { requestId, method: c.req.method, path: c.req.path, status: c.res.status };
  if (c.error && c.res.status === 500) log.error({ ...fields, err: c.error }, "unexpected error");
  else log.warn({ ...fields, reason: c.error?.message }, "request not served");
}

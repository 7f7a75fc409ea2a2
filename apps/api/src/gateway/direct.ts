import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { MiddlewareHandler } from "hono";

/**
 * An answer that goes to Node's response itself (SPEC §7.5 with no web streams in between). The
 * handler returns `head`, an ordinary bodiless Response with the answer's status and headers, so
 * every middleware sees and adjusts it as any other; once they all have, `sendDirectly` writes the
 * head as they left it and the body goes from the engine to the socket as it comes.
 */
export type DirectAnswer = {
  readonly head: Response;
  /** Writes the head (`status`, `headers`) and then the body as it comes. */
  send(status: number, headers: OutgoingHttpHeaders): void;
  /** Another answer went out instead (a middleware replaced it): lets go of the engine's. */
  cancel(status: number): void;
};

/** Responses `sendDirectly` wraps (it will send an answer left for them), and the answers left. */
const accepting = new WeakSet<ServerResponse>();
const waiting = new WeakMap<ServerResponse, DirectAnswer>();

/** Under @hono/node-server, `c.env.outgoing` (recognised by shape: this file opens no connections). */
export function nodeResponseOf(env: unknown): ServerResponse | null {
  if (typeof env !== "object" || env === null) return null;
  const outgoing = (env as { outgoing?: unknown }).outgoing;
  if (typeof outgoing !== "object" || outgoing === null) return null;
  const candidate = outgoing as Partial<ServerResponse>;
  return typeof candidate.writeHead === "function" && typeof candidate.headersSent === "boolean"
    ? (outgoing as ServerResponse)
    : null;
}

/** Whether an answer left for `outgoing` will be sent (`sendDirectly` runs around this request). */
export function acceptsDirect(outgoing: ServerResponse): boolean {
  return accepting.has(outgoing) && !outgoing.headersSent;
}

export function leaveDirect(outgoing: ServerResponse, answer: DirectAnswer): Response {
  waiting.set(outgoing, answer);
  return answer.head;
}

/** What @hono/node-server takes for "the answer was written already" (x-hono-already-sent). */
let alreadySent: Response | null = null;
function sentResponse(): Response {
  if (!alreadySent) {
    alreadySent = new Response(null, { headers: { "x-hono-already-sent": "true" } });
    // Under node-server's own Response class, taking the body makes it a plain Response, which is
    // what its listener checks that header on.
    void alreadySent.body;
  }
  return alreadySent;
}

/**
 * Outermost on the request path: after every other middleware has run, sends a direct answer the
 * handler left (its head as the middleware left it), and tells the server it has been sent.
 */
export function sendDirectly(): MiddlewareHandler {
  return async (c, next) => {
    const outgoing = nodeResponseOf(c.env);
    if (!outgoing) return next();
    accepting.add(outgoing);
    try {
      await next();
    } finally {
      accepting.delete(outgoing);
    }
    const answer = waiting.get(outgoing);
    if (!answer) return;
    waiting.delete(outgoing);
    const res = c.res;
    if (res !== answer.head) {
      answer.cancel(res.status);
      return;
    }
    const headers: OutgoingHttpHeaders = {};
    res.headers.forEach((value, name) => {
      if (name !== "set-cookie") headers[name] = value;
    });
    const cookies = res.headers.getSetCookie();
    if (cookies.length > 0) headers["set-cookie"] = cookies;
    answer.send(res.status, headers);
    c.res = undefined;
    c.res = sentResponse();
  };
}

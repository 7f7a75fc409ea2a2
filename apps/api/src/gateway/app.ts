import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { BenchSend } from "@llmgw/client/bench";
import type { Auth } from "../auth";
import { admitCaller, recordUse } from "../auth/middleware";
import { RESOURCE_HEADERS } from "../auth/securityHeaders";
import type { Deps } from "../deps";
import { logFailure, REQUEST_ID_HEADER, requestIdOf } from "../requestId";
import { CLIENT_WENT_AWAY } from "./dispatcher";
import { asGatewayRefusal, gatewayErrorBody, onRequestPath } from "./errors";
import { type Exchange, NodeExchange, WebExchange } from "./exchange";
import type { Gateway, Sender } from "./gateway";
import { type V1Route, v1Routes } from "./routes";
import type { Head } from "./sink";

const ID = REQUEST_ID_HEADER.toLowerCase();

/**
 * Whether a request target is under /v1 and left as it is by the URL parser: plain URL characters
 * only, and no segment starting with a dot (so no dot segment, `.` or `%2e`, to resolve).
 */
function plainTarget(target: string): boolean {
  if (!onRequestPath(target) || !/^[\w.~!$&'()*+,;=:@%/?-]*$/.test(target)) return false;
  const query = target.indexOf("?");
  return !/\/(?:\.|%2e)/i.test(query === -1 ? target : target.slice(0, query));
}

/** A Host the URL parser takes unchanged: a name or IPv4 address, or a bracketed IPv6 one, and a port. */
const PLAIN_HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/**
 * The request path (/v1, SPEC §7) as its own small app, outside Hono's, with one door and one
 * fallback: under a Node listener (listen.ts) `serveNode` reads a plain target from Node's request
 * and answers on Node's response itself; anything else (a target node-server normalises, or a
 * request in process through `app.request`) comes to `respond` as a web Request. Its own chain, the same on every route: the
 * request id (the client's when sane, passed to the engine), authorization with the route's need
 * fixed when the routes were made, the route, and refusals answered from the /v1 edge's one table
 * in OpenAI's shape. Every answer carries the id and the security headers; a 5xx is logged once.
 * The gateway's meter is its only meter.
 */
export class RequestPathApp {
  readonly #routes: V1Route[];

  constructor(
    private readonly deps: Deps,
    private readonly gateway: Gateway,
    private readonly auth: Auth,
  ) {
    this.#routes = v1Routes(deps, gateway);
  }

  /**
   * The fallback: a web Request, in process (`app.request`) or built by @hono/node-server for a
   * target the listener's fast path left to it (`serveNode`).
   */
  respond(request: Request): Promise<Response> {
    const id = requestIdOf(request.headers.get(ID) ?? undefined);
    const ex = new WebExchange(request, fixedHead(id));
    this.#serve(ex, id);
    return ex.sink.response;
  }

  /**
   * Under a Node listener, before @hono/node-server builds anything for it: answers a request whose
   * path is plainly the request path's straight from Node's request and response, and says so.
   * Anything the URL parser would rewrite (dot segments, escapes it decodes, odd characters) or a
   * Host it would refuse is left to node-server (false), which hands it to `respond` normalised.
   */
  serveNode(incoming: IncomingMessage, outgoing: ServerResponse): boolean {
    const target = incoming.url;
    const host = incoming.headers.host;
    if (target === undefined || host === undefined || !plainTarget(target) || !PLAIN_HOST.test(host))
      return false;
    const scheme = (incoming.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
    const id = requestIdOf(headerOf(incoming, ID));
    this.#serve(new NodeExchange(`${scheme}://${host}${target}`, incoming, outgoing, fixedHead(id)), id);
    return true;
  }

  /**
   * A chat completion sent in process by `by`, as the dashboard's bench sends it (SPEC §5): the
   * same gateway every client goes through, entered past authorization (the operator who asked
   * for the bench was authorized on `POST /models/:name/bench`). Its requests count as `by`'s.
   */
  sendAs(by: string): BenchSend {
    return async (body, signal) => {
      const request = new Request("http://localhost/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal,
      });
      const id = randomUUID();
      const ex = new WebExchange(request, fixedHead(id));
      this.#serve(ex, id, by);
      return ex.sink.response;
    };
  }

  /** Answers one exchange; `admittedAs` names a caller authorized already (the bench's operator). */
  #serve(ex: Exchange, requestId: string, admittedAs?: string): void {
    this.#chain(ex, requestId, admittedAs).catch((err: unknown) =>
      this.deps.log.error({ err, requestId }, "the request path could not answer"),
    );
  }

  async #chain(ex: Exchange, requestId: string, admittedAs?: string): Promise<void> {
    const { route, param } = this.#route(ex);
    let sender: Sender | null = null;
    try {
      if (admittedAs !== undefined) {
        sender = { actor: admittedAs, token: null, requestId };
        await route.handle(ex, sender, param);
        return;
      }
      const admitted = await admitCaller(this.auth, ex, route.need);
      sender = { actor: admitted.principal.name, token: admitted.token, requestId };
      await route.handle(ex, sender, param);
      // Only a request that succeeded counts as the token's use.
      if (ex.sink.status < 400) void recordUse(this.auth, admitted, false, requestId);
    } catch (err) {
      if (sender === null && route.routed) this.gateway.refused(asGatewayRefusal(err).status, "");
      this.#refuse(ex, err, requestId);
    }
  }

  /** The routes, in the order they are matched (the access table and the API description's checks read them). */
  get routes(): readonly V1Route[] {
    return this.#routes;
  }

  /** The route that answers `method path`, when one but the fallback does. */
  endpointOf(method: string, path: string): V1Route | null {
    return this.#routes.find((route) => route.match(method, path) !== undefined) ?? null;
  }

  #route(ex: Exchange): { route: V1Route; param: string | null } {
    for (const route of this.#routes) {
      const param = route.match(ex.method, ex.pathname);
      if (param !== undefined) return { route, param };
    }
    // The contract's fallback (`ALL /v1/*`) matches every path this app is given.
    return { route: this.#routes[this.#routes.length - 1] as V1Route, param: null };
  }

  /** A refusal in OpenAI's shape, from the /v1 edge's one table; nothing when the client is gone. */
  #refuse(ex: Exchange, err: unknown, requestId: string): void {
    if (err === CLIENT_WENT_AWAY || ex.gone) {
      ex.abandon();
      return;
    }
    const refusal = asGatewayRefusal(err);
    if (refusal.status >= 500) {
      const fields = { requestId, method: ex.method, path: ex.pathname, status: refusal.status };
      // A refusal of the request path's own (a 503 with no capacity, a 502 upstream) carries its
      // reason in its message; anything else is the unexpected error itself.
      logFailure(this.deps.log, fields, err instanceof Error ? err : undefined);
    }
    if (ex.sink.begun) {
      ex.sink.cut();
      return;
    }
    const body = Buffer.from(JSON.stringify(gatewayErrorBody(refusal)));
    const head: Head = ["content-type", "application/json", "content-length", body.byteLength];
    for (const [name, value] of Object.entries(refusal.headers)) head.push(name, value);
    ex.sink.head(refusal.status, head);
    ex.sink.end(body);
  }
}

/** What every answer of the request path carries: its id and the security headers. */
function fixedHead(requestId: string): Head {
  return RESOURCE_HEADERS.concat(ID, requestId);
}

function headerOf(incoming: IncomingMessage, name: string): string | undefined {
  const value = incoming.headers[name];
  return typeof value === "string" ? value : undefined;
}

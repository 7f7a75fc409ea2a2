import { contract, keyOf, type Need, type Route } from "@llmgw/contract";
import type { Deps } from "../deps";
import { servedModel, servedModels } from "./catalogue";
import { GatewayError } from "./errors";
import type { Exchange } from "./exchange";
import type { Gateway, Sender } from "./gateway";

/** What answers one of the request path's routes, on the exchange's sink. */
export type V1Handler = (ex: Exchange, sender: Sender, param: string | null) => Promise<void> | void;

/** A route of the request path as the app matches it: its method, path, the need fixed with it. */
export type V1Route = {
  readonly key: string;
  readonly method: string;
  readonly path: string;
  readonly need: Need;
  /** An inference request (the gateway's meter counts its refusals too). */
  readonly routed: boolean;
  readonly handle: V1Handler;
  /** The path's parameter when `path` is this route's, else undefined (`null`: none to take). */
  match(method: string, path: string): string | null | undefined;
};

type Implementations = { readonly [K in keyof typeof contract.inference]: V1Handler };

/**
 * The request path's routes (SPEC §7), outside /api, straight from the contract: the three OpenAI
 * endpoints are named for the access table and the API description, any other POST whose body
 * names a model is routed the same way (a client of a newer API works without a gateway release),
 * and anything else under /v1 is a 404. Each route's need is read once, here.
 */
export function v1Routes(deps: Deps, gateway: Gateway): V1Route[] {
  const routed: V1Handler = (ex, sender) => gateway.handle(ex, sender);
  const implementations: Implementations = {
    models: async (ex) => sendJson(ex, { object: "list", data: servedModels(await deps.world.snapshot()) }),
    model: async (ex, _sender, name) => sendJson(ex, servedModel(await deps.world.snapshot(), name ?? "")),
    chat: routed,
    completions: routed,
    embeddings: routed,
    other: routed,
    notFound: (ex) => {
      throw new GatewayError({ code: "not_found", message: `no such endpoint: ${ex.method} ${ex.pathname}` });
    },
  };
  return Object.entries(contract.inference).map(([name, route]) =>
    v1Route(route, implementations[name as keyof Implementations], implementations),
  );
}

function v1Route(route: Route, handle: V1Handler, all: Implementations): V1Route {
  const method = route.method;
  const match = matcherOf(route.path);
  return {
    key: keyOf(route),
    method,
    path: route.path,
    need: route.need,
    routed: handle === all.chat,
    handle,
    // A HEAD is the GET without its body (Node's response and WebSink leave it out).
    match: (m, path) =>
      method === "ALL" || m === method || (m === "HEAD" && method === "GET") ? match(path) : undefined,
  };
}

/** `/v1/models` exactly, `/v1/models/:model` (one segment, decoded), `/v1/*` (the rest, or nothing). */
function matcherOf(path: string): (path: string) => string | null | undefined {
  if (path.endsWith("/*")) {
    const base = path.slice(0, -2);
    return (p) => (p === base || p.startsWith(`${base}/`) ? null : undefined);
  }
  const param = path.indexOf("/:");
  if (param === -1) return (p) => (p === path ? null : undefined);
  const prefix = path.slice(0, param + 1);
  return (p) => {
    if (!p.startsWith(prefix)) return undefined;
    const segment = p.slice(prefix.length);
    if (segment === "" || segment.includes("/")) return undefined;
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  };
}

function sendJson(ex: Exchange, value: unknown): void {
  const body = Buffer.from(JSON.stringify(value));
  ex.sink.head(200, ["content-type", "application/json", "content-length", body.byteLength]);
  ex.sink.end(body);
}

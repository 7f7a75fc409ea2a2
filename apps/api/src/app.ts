import type { IncomingMessage, ServerResponse } from "node:http";
import { contract, keyOf, ROUTES, type Route } from "@llmgw/contract";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { authorize, createAuth, securityHeaders } from "./auth";
import { budgetRefusals } from "./budget/metrics";
import { TokenBudgets } from "./budget/tokenBudgets";
import type { Control } from "./control/control";
import type { Deps } from "./deps";
import type { AppEnv } from "./env";
import { AppError, refuse, respondError } from "./errors";
import { RequestPathApp } from "./gateway/app";
import { onRequestPath } from "./gateway/errors";
import { pathOf } from "./gateway/exchange";
import { Gateway, type GatewayOptions } from "./gateway/gateway";
import { NO_METER } from "./gateway/meter";
import type { AgentSource } from "./install/agentFile";
import {
  AppMetrics,
  IDLE_GATEWAY,
  PromGatewayMeter,
  RecentTraffic,
  sharedTraffic,
  startTraffic,
} from "./metrics";
import { weightsRoutes } from "./mirror/serveFiles";
import { requestId } from "./requestId";
import { agentRoutes } from "./routes/agents";
import { capacityRoutes } from "./routes/capacity";
import { fleetRoutes } from "./routes/fleet";
import { register, type Served } from "./routes/handlers";
import { installRoutes } from "./routes/install";
import { metaRoutes } from "./routes/meta";
import { mirrorRoutes, pullRoutes } from "./routes/mirror";
import { modelRoutes } from "./routes/models";
import { auditRoutes, quotaRoutes } from "./routes/quotas";
import { sessionRoutes } from "./routes/session";
import { tokenRoutes } from "./routes/tokens";
import { trafficRoutes } from "./routes/traffic";
import { usageRoutes } from "./routes/usage";
import { BenchRuns } from "./services/startBench";
import { UsageMetrics } from "./usage/metrics";
import { UsageTally, withUsage } from "./usage/tally";
import { textPath } from "./validate";

export type AppOptions = {
  /** The built dashboard (apps/web/dist); the SPA answers every unknown non-API path. */
  webDist?: string | null;
  /** Heartbeats per agent token in 10 s (HEARTBEATS_PER_10S); test suites that beat fast raise it. */
  heartbeatsPer10s?: number;
  /**
   * The request path's meter and client-token admission (SPEC §7): by default the app's own
   * (llmgw_gateway_* on its /metrics, the client tokens' limits); tests may give others.
   */
  gateway?: GatewayOptions;
  /** The agent `/install/agent.mjs` hands out (SPEC §5); without it /install/* answers 404. */
  agent?: AgentSource | null;
  /**
   * False: the request path does not count usage (SPEC §12.1); only the bench's baseline turns it
   * off, to measure what counting and a budget cost (a budget is the token's, §12.3).
   */
  countUsage?: boolean;
};

type Serving = {
  gateway: Gateway;
  requestPath: RequestPathApp;
  benches: BenchRuns;
  startTraffic: () => () => void;
  usage: UsageTally;
  budgets: TokenBudgets;
};
const serving = new WeakMap<object, Serving>();

/** What the app's gateway counted for SPEC §12.1 and not yet written (the usage recorder takes it). */
export function usageTallyOf(app: object): UsageTally | undefined {
  return serving.get(app)?.usage;
}

/** The client tokens' budgets of the app's gateway (SPEC §12.3): `llmgw serve` syncs them every second. */
export function budgetsOf(app: object): TokenBudgets | undefined {
  return serving.get(app)?.budgets;
}

/** The request path of an app `createApp` built: its live figures, and closing its upstream pools. */
export function gatewayOf(app: object): Gateway | undefined {
  return serving.get(app)?.gateway;
}

/** The request path (/v1) of an app `createApp` built: its own small app, outside Hono's routes. */
export function requestPathOf(app: object): RequestPathApp | undefined {
  return serving.get(app)?.requestPath;
}

/**
 * What answers the request path (/v1) straight from Node's request and response, for a listener to
 * call before @hono/node-server (listen.ts): true when it took the request.
 */
export function nodeRequestPathOf(
  app: object,
): (incoming: IncomingMessage, outgoing: ServerResponse) => boolean {
  const requestPath = requestPathOf(app);
  return requestPath ? (incoming, outgoing) => requestPath.serveNode(incoming, outgoing) : () => false;
}

/** The benches the app runs for `POST /models/:name/bench`: to await one, or stop them all. */
export function benchesOf(app: object): BenchRuns | undefined {
  return serving.get(app)?.benches;
}

/**
 * Starts the app's `model.traffic` events (every second with traffic); returns how to stop them.
 * `llmgw serve` runs them; an app in a test sends none unless it asks.
 */
export function startTrafficOf(app: object): () => void {
  return serving.get(app)?.startTraffic() ?? (() => {});
}

/**
 * The whole HTTP surface. The request path (/v1) is its own small app (gateway/app.ts), reached
 * before Hono's router. For the rest order matters: timings and security headers wrap everything
 * (refusals included); `authorize` runs before any route, reading who may call what from
 * auth/access.ts. `control` (control/) is what the process controls: the gateway gets it as its
 * `GatewayControl`, the routes that wake, target or pull as the services' `ControlFace`.
 */
export function createApp(deps: Deps, control: Control, options: AppOptions = {}) {
  const metrics = new AppMetrics(deps, control.runtime);
  const auth = createAuth(deps, { heartbeatsPer10s: options.heartbeatsPer10s });
  const app = new Hono<AppEnv>();
  app.onError((err, c) => respondError(err, c));
  app.notFound((c) =>
    refuse(c, new AppError({ code: "not_found", message: `nothing here: ${c.req.method} ${c.req.path}` })),
  );
  app.use("*", requestId(deps.log));
  app.use("*", metrics.http.middleware());
  app.use("*", securityHeaders());
  app.use("*", authorize(auth));
  const limit = bodyLimit({
    maxSize: 1024 * 1024,
    onError: (c) =>
      refuse(c, new AppError({ code: "payload_too_large", message: "the body is larger than 1 MiB" })),
  });
  // No route reads a GET's body: checking it would make the server build a whole Request for
  // every read, each of the thousands of open event streams included.
  app.use("/api/*", (c, next) =>
    c.req.method === "GET" || c.req.method === "HEAD" ? next() : limit(c, next),
  );
  app.use("/api/*", textPath());
  let gateway: Gateway | null = null;
  const now = () => gateway?.now() ?? IDLE_GATEWAY;
  const ownMeter = options.gateway?.meter ? null : new PromGatewayMeter({ registry: metrics.registry, now });
  const usage = new UsageTally(() => deps.now().getTime());
  const budgets = new TokenBudgets({
    store: deps.store.budgets,
    now: () => deps.now().getTime(),
    log: deps.log,
    refused: budgetRefusals(metrics.registry),
  });
  const meter = options.gateway?.meter ?? ownMeter ?? NO_METER;
  gateway = new Gateway(deps, control, {
    meter: options.countUsage === false ? meter : withUsage(meter, usage, new UsageMetrics(metrics.registry)),
    admission: options.gateway?.admission ?? auth.clientLimits,
    budgets,
  });
  const benches = new BenchRuns();
  const requestPath = new RequestPathApp(deps, gateway, auth);
  const sendAs = (by: string) => requestPath.sendAs(by);
  const recent = new RecentTraffic();
  const share = sharedTraffic(deps.store, deps.origin);
  serving.set(app, {
    usage,
    budgets,
    gateway,
    requestPath,
    benches,
    startTraffic: () =>
      ownMeter
        ? startTraffic({ hub: deps.hub, log: deps.log, now, meter: ownMeter, recent, share })
        : () => {},
  });
  const dist = options.webDist ?? null;
  register(
    app,
    inContractOrder([
      ...modelRoutes(deps, control, { runs: benches, sendAs }),
      ...fleetRoutes(deps),
      ...agentRoutes(deps, auth),
      ...capacityRoutes(deps),
      ...trafficRoutes(deps, recent),
      ...mirrorRoutes(deps),
      ...pullRoutes(deps, control),
      ...quotaRoutes(deps),
      ...auditRoutes(deps),
      ...usageRoutes(deps),
      ...tokenRoutes(deps, auth),
      ...sessionRoutes(deps, auth),
      ...metaRoutes(deps, metrics, dist),
      ...weightsRoutes(deps.mirror),
      ...installRoutes(deps, auth, options.agent ?? null),
    ]),
  );
  // /v1 goes to its own app before Hono routes anything: no middleware of the control plane's runs
  // on it. Under a Node listener a plain /v1 target never reaches here (`nodeRequestPathOf`).
  const api = app.fetch;
  app.fetch = (request, env, executionCtx) =>
    onRequestPath(pathOf(request.url)) ? requestPath.respond(request) : api(request, env, executionCtx);
  return app;
}

/** The request path's routes: its own app answers them (gateway/routes.ts), never Hono's router. */
const REQUEST_PATH = new Set<Route>(Object.values(contract.inference));

/**
 * The handlers in the contract's order (a fallback after what it falls back from), each route
 * but the request path's answered exactly once: a contract route without a handler, or a handler
 * twice, stops the start.
 */
function inContractOrder(served: readonly Served[]): Served[] {
  const byRoute = new Map<Route, Served>();
  for (const s of served) {
    if (byRoute.has(s.route)) throw new Error(`${keyOf(s.route)} has two handlers`);
    byRoute.set(s.route, s);
  }
  return ROUTES.filter((route) => !REQUEST_PATH.has(route)).map((route) => {
    const found = byRoute.get(route);
    if (!found) throw new Error(`${keyOf(route)} has no handler`);
    return found;
  });
}

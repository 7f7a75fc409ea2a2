import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { type Auth, authorize, createAuth, securityHeaders } from "./auth";
import type { Deps } from "./deps";
import type { AppEnv } from "./env";
import { AppError, errorBody, respondError } from "./errors";
import { sendDirectly } from "./gateway/direct";
import { onRequestPath, respondGatewayError } from "./gateway/errors";
import { Gateway, type GatewayOptions } from "./gateway/gateway";
import { gatewayRoutes } from "./gateway/routes";
import { AppMetrics, IDLE_GATEWAY, PromGatewayMeter, startTraffic } from "./metrics";
import { mirrorFiles } from "./mirror/serveFiles";
import { openApiDocument } from "./openapi";
import { requestId } from "./requestId";
import { auditRoutes } from "./routes/audit";
import { eventRoutes } from "./routes/events";
import { agentRoutes, capacityRoutes, fleetRoutes } from "./routes/fleet";
import { mirrorRoutes } from "./routes/mirror";
import { modelRoutes } from "./routes/models";
import { quotaRoutes } from "./routes/quotas";
import { sessionRoutes } from "./routes/session";
import { tokenRoutes } from "./routes/tokens";
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
};

type Serving = { gateway: Gateway; startTraffic: () => () => void };
const serving = new WeakMap<object, Serving>();

/** The request path of an app `createApp` built: its live figures, and closing its upstream pools. */
export function gatewayOf(app: object): Gateway | undefined {
  return serving.get(app)?.gateway;
}

/**
 * Starts the app's `model.traffic` events (every second with traffic); returns how to stop them.
 * `llmgw serve` runs them; an app in a test sends none unless it asks.
 */
export function startTrafficOf(app: object): () => void {
  return serving.get(app)?.startTraffic() ?? (() => {});
}

/** The API routes, chained so their types make the typed client (`hc<AppType>`). */
function apiRoutes(deps: Deps, auth: Auth) {
  return new Hono<AppEnv>()
    .route("/models", modelRoutes(deps))
    .route("/fleet", fleetRoutes(deps))
    .route("/agents", agentRoutes(deps, auth))
    .route("/mirror", mirrorRoutes(deps))
    .route("/quotas", quotaRoutes(deps))
    .route("/audit", auditRoutes(deps))
    .route("/events", eventRoutes(deps.hub, deps.store.events, { logger: deps.log }))
    .route("/", capacityRoutes(deps))
    .route("/tokens", tokenRoutes(deps, auth))
    .route("/session", sessionRoutes(deps, auth))
    .get("/openapi.json", (c) => c.json(openApiDocument()));
}

/**
 * The whole HTTP surface. Order matters: timings and security headers wrap everything (refusals
 * included); `authorize` runs before any route, reading who may call what from auth/access.ts.
 */
export function createApp(deps: Deps, options: AppOptions = {}) {
  const metrics = new AppMetrics(deps);
  const auth = createAuth(deps, { heartbeatsPer10s: options.heartbeatsPer10s });
  const app = new Hono<AppEnv>();
  app.onError((err, c) => {
    // The request path answers in OpenAI's error shape, the authorization middleware's refusals too.
    if (onRequestPath(c.req.path)) return respondGatewayError(err, c);
    if (err instanceof HTTPException && !(err instanceof AppError)) {
      const status = err.status;
      // Hono's own 400 is a body its validator could not parse: name the body as the field.
      const fields = status === 400 ? { body: err.message } : undefined;
      return c.json(
        errorBody(
          new AppError(status, status === 413 ? "payload_too_large" : "bad_request", err.message, fields),
        ),
        status,
      );
    }
    return respondError(err, c);
  });
  app.notFound((c) =>
    c.json(errorBody(new AppError(404, "not_found", `nothing here: ${c.req.method} ${c.req.path}`)), 404),
  );
  // Outermost on /v1: sends the answer the gateway leaves for Node's response, once every
  // middleware below has seen (and adjusted) its head.
  app.use("/v1/*", sendDirectly());
  app.use("*", requestId(deps.log));
  app.use("*", metrics.http.middleware());
  app.use("*", securityHeaders());
  app.use("*", authorize(auth));
  const limit = bodyLimit({
    maxSize: 1024 * 1024,
    onError: (c) =>
      c.json(errorBody(new AppError(413, "payload_too_large", "the body is larger than 1 MiB")), 413),
  });
  // No route reads a GET's body: checking it would make the server build a whole Request for
  // every read, each of the thousands of open event streams included.
  app.use("/api/*", (c, next) =>
    c.req.method === "GET" || c.req.method === "HEAD" ? next() : limit(c, next),
  );
  app.use("/api/*", textPath());
  const api = apiRoutes(deps, auth);
  app.route("/api/v1", api);
  app.all("/api/*", (c) =>
    c.json(errorBody(new AppError(404, "not_found", `no such endpoint: ${c.req.method} ${c.req.path}`)), 404),
  );
  app.get("/healthz", async (c) => {
    try {
      await deps.store.sql.query("select 1");
      return c.json({ ok: true, store: deps.store.kind });
    } catch {
      return c.json({ ok: false, store: deps.store.kind, error: "the store does not answer" }, 503);
    }
  });
  app.get("/metrics", async (c) =>
    c.text(await metrics.page(), 200, { "Content-Type": metrics.contentType }),
  );
  app.route("/", mirrorFiles(deps.mirror));
  let gateway: Gateway | null = null;
  const now = () => gateway?.now() ?? IDLE_GATEWAY;
  const ownMeter = options.gateway?.meter ? null : new PromGatewayMeter({ registry: metrics.registry, now });
  gateway = new Gateway(deps, {
    meter: options.gateway?.meter ?? ownMeter ?? undefined,
    admission: options.gateway?.admission ?? auth.clientLimits,
  });
  serving.set(app, {
    gateway,
    startTraffic: () =>
      ownMeter ? startTraffic({ hub: deps.hub, log: deps.log, now, meter: ownMeter }) : () => {},
  });
  app.route("/v1", gatewayRoutes(deps, gateway));
  const dist = options.webDist;
  if (dist && existsSync(join(dist, "index.html"))) {
    app.use("/*", serveStatic({ root: dist }));
    // Read per request, not at start: a rebuilt dashboard is served without a restart.
    app.get("*", (c) => c.html(readFileSync(join(dist, "index.html"), "utf8")));
  }
  return app;
}

export type AppType = ReturnType<typeof apiRoutes>;

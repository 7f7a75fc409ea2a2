import { isLoopback } from "@llmgw/domain";
import { createLogger, type Logger } from "@llmgw/log";
import { WAKES_CHANNEL } from "@llmgw/store";
import {
  benchesOf,
  budgetsOf,
  createApp,
  gatewayOf,
  nodeRequestPathOf,
  startTrafficOf,
  usageTallyOf,
} from "./app";
import { startAutoscaler } from "./autoscale/autoscaler";
import type { Config } from "./config";
import { Control } from "./control/control";
import type { Deps } from "./deps";
import { AppError, errorBody } from "./errors";
import { startHeadroomChanges } from "./events/headroomChanges";
import { startRelay } from "./events/relay";
import type { GatewayOptions } from "./gateway/gateway";
import type { AgentSource } from "./install/agentFile";
import { type DirectListener, listen } from "./listen";
import { openDeps } from "./openDeps";
import { startScheduler } from "./scheduler";
import { startLeadership } from "./scheduler/leader";
import { markSilentNodesDown } from "./services/liveness";
import { mirrorChanged } from "./services/mirrorPlans";
import { startUsageRecorder } from "./usage/recorder";

export type RunningServer = {
  url: string;
  deps: Deps;
  control: Control;
  close(): Promise<void>;
};

/** What the port answers until start-up is done: a refusal of the /api table, before any app. */
const starting = new AppError({
  code: "starting",
  message: "llmgw is starting; try again in a moment",
  headers: { "Retry-After": "1" },
});

/**
 * `llmgw serve`: the store, the mirror's watch, liveness, and the API and dashboard on one port.
 * Logs one line when it is ready to answer (JSON lines on standard output unless given a logger).
 */
export async function startServer(
  config: Config,
  options: {
    webDist?: string | null;
    log?: Logger;
    gateway?: GatewayOptions;
    agent?: AgentSource | null;
    /** False: no usage counting (the bench's baseline, SPEC §12). */
    countUsage?: boolean;
  } = {},
): Promise<RunningServer> {
  const log = options.log ?? createLogger();
  if (config.tokens.length === 0 && !isLoopback(config.listen.host)) {
    throw new Error(
      `refusing to listen on ${config.listen.host}: no tokens are configured, so anyone who can reach it could change the fleet. Listen on 127.0.0.1, or configure tokens in llmgw.yaml`,
    );
  }
  // The port is taken first (listen.ts) and answers 503 until start-up is done.
  let ready: ReturnType<typeof createApp> | null = null;
  let direct: DirectListener = () => false;
  const { server, url } = await listen(
    config.listen,
    (request, env) =>
      ready
        ? ready.fetch(request, env)
        : Response.json(errorBody(starting), { status: starting.status, headers: starting.headers }),
    (incoming, outgoing) => direct(incoming, outgoing),
  );
  // Listening on port 0 (tests): the mirror's sources must name the port actually taken.
  if (config.listen.port === 0 && config.mirror.baseUrl.endsWith(":0")) config.mirror.baseUrl = url;
  const deps = await openDeps(config, { log }).catch((err: unknown) => {
    server.close();
    throw err;
  });
  // What this process controls (the scheduler's runtime, wakes, pulls): this server owns it.
  const control = new Control(deps);
  const app = createApp(deps, control, {
    webDist: options.webDist ?? null,
    agent: options.agent ?? null,
    ...(options.gateway ? { gateway: options.gateway } : {}),
    ...(options.countUsage === false ? { countUsage: false } : {}),
  });

  const stopTraffic = startTrafficOf(app);
  const tally = usageTallyOf(app);
  const usageRecorder = tally ? startUsageRecorder(deps, control.runtime, tally) : null;
  const budgets = budgetsOf(app);
  budgets?.start();
  const stopHeadroomChanges = startHeadroomChanges({ hub: deps.hub, world: deps.world, log });
  await deps.mirror.scan();
  const stopWatch = deps.mirror.watch((changed, removed) => {
    mirrorChanged({ deps, input: { changed, removed } }).catch((err: unknown) =>
      log.error({ err }, "mirror update failed"),
    );
  });
  // After the first scan: the listing is up at once, and the digests (SPEC §8.1) follow.
  const stopHashing = deps.mirror.hashInBackground();
  // Pulls a restart interrupted continue from their `.part` files (SPEC §10.4).
  await control.startPulls();
  const liveness = setInterval(
    () => void markSilentNodesDown(deps).catch((err: unknown) => log.error({ err }, "liveness check failed")),
    Math.min(1000, config.heartbeatSeconds * 1000),
  );
  liveness.unref();

  // Several processes may share one PostgreSQL (SPEC §4): the relay brings the others' events to
  // this one's streams, and only the holder of the leader lock schedules (a new leader plans at once).
  const relay = deps.store.kind === "postgres" ? await startRelay(deps) : null;
  // A wake through another process: the leader runs at once rather than at its next interval.
  const unlistenWakes =
    deps.store.kind === "postgres"
      ? await deps.store.db
          .listen(WAKES_CHANNEL, () => control.nudge())
          .catch((err: unknown) => {
            log.warn({ err }, "cannot listen for wakes (the scheduler's interval takes them)");
            return null;
          })
      : null;
  const leadership = await startLeadership(deps, control.runtime, { onGain: () => control.nudge() });
  // Before the scheduler: its first run must know the wanted replicas the last leader stored.
  const autoscaler = await startAutoscaler(deps, control, {
    demand: () => gatewayOf(app)?.demand() ?? { models: new Map(), replicas: new Map() },
  });
  // A run every heartbeat interval at least (on-demand wakes go idle without any event); every
  // run reads the autoscaler's wanted replicas and requests per replica.
  const scheduler = startScheduler(deps, control, {
    intervalMs: config.heartbeatSeconds * 1000,
    leader: leadership.check,
    scale: autoscaler,
  });

  ready = app;
  direct = nodeRequestPathOf(app);
  const store = deps.store.kind === "pglite" ? `embedded store in ${config.dataDir}/db` : "PostgreSQL";
  const open =
    config.tokens.length === 0 ? "; no tokens configured: loopback only, every request accepted" : "";
  const placing = scheduler ? "" : "; scheduler off: replicas come only from agents";
  log.info({ url }, `llmgw ready on ${url} (${store}, mirror ${config.mirror.dir}${open}${placing})`);

  return {
    url,
    deps,
    control,
    async close() {
      stopWatch();
      stopHashing();
      stopTraffic();
      stopHeadroomChanges();
      clearInterval(liveness);
      await benchesOf(app)?.closeAll();
      await control.pulls.stop();
      await gatewayOf(app)?.close();
      await usageRecorder?.stop();
      await budgets?.stop();
      await autoscaler.stop();
      await scheduler?.stop();
      await leadership.stop();
      await relay?.stop();
      await unlistenWakes?.().catch(() => undefined);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Open event streams would hold close() forever.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await deps.store.close();
    },
  };
}

import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { type Logger, silentLogger } from "@llmgw/log";
import { openStore, type Store } from "@llmgw/store";
import type { Config } from "./config";
import { EventHub } from "./events/eventHub";
import { createMirror, type Mirror } from "./mirror/scanner";
import { SchedulerRuntime } from "./scheduler/runtime";
import { PullRunner } from "./services/pullRunner";
import { World } from "./world";

/** What the app is built from; tests build it with an in-memory store and a temp mirror. */
export type Deps = {
  config: Config;
  store: Store;
  hub: EventHub;
  world: World;
  mirror: Mirror;
  now: () => Date;
  /** On-demand models woken, with when: the scheduler wants one replica until idle. */
  wakes: Map<string, number>;
  /** This process, as its stored events name it (events/relay.ts tells its own from others'). */
  origin: string;
  /**
   * The scheduler's state in this process: its loop, leader lock, run queue and figures. On Deps
   * because everything that reaches it (services that nudge the loop, the metrics page) is
   * already handed Deps, as `wakes` and `world` are.
   */
  runtime: SchedulerRuntime;
  /** The process's logger (log.ts); silent unless `openDeps` is given one. */
  log: Logger;
  /** Pulls from the Hugging Face Hub this process downloads (SPEC §10.4). */
  pulls: PullRunner;
};

/**
 * Opens the store (PGlite in `<dataDir>/db`, or PostgreSQL from DATABASE_URL), seeds classes and
 * quotas from the configuration (starting values: the API may change them later) and makes the
 * catalogue's declared models match the file. `store`: one already open instead (the suites' in-memory
 * PGlite, loaded from a migrated copy rather than made by initdb per file); it is closed on failure.
 */
export async function openDeps(
  config: Config,
  options: { inMemory?: boolean; store?: Store; log?: Logger } = {},
): Promise<Deps> {
  const log = options.log ?? silentLogger();
  const store =
    options.store ??
    (await openStore(
      config.databaseUrl
        ? { databaseUrl: config.databaseUrl }
        : options.inMemory
          ? {}
          : { dataDir: config.dataDir },
    ));
  try {
    await store.transaction(async (tx) => {
      await tx.classes.seed(config.classes ?? []);
      await tx.quotas.seed(config.quotas);
      await tx.models.syncDeclared(config.models, { by: "config" });
    });
  } catch (err) {
    await store.close();
    throw err;
  }
  await mkdir(config.mirror.dir, { recursive: true });
  return {
    config,
    store,
    hub: new EventHub(),
    world: new World(store),
    mirror: createMirror({ dir: config.mirror.dir, log }),
    now: () => new Date(),
    wakes: new Map(),
    origin: randomUUID(),
    runtime: new SchedulerRuntime(),
    log,
    pulls: new PullRunner(),
  };
}

import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { type Logger, silentLogger } from "@llmgw/log";
import { openStore, type Store } from "@llmgw/store";
import type { Config } from "./config";
import type { Deps } from "./deps";
import { EventHub } from "./events/eventHub";
import { createMirror } from "./mirror/scanner";
import { World } from "./world";

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
    origin: randomUUID(),
    log,
  };
}

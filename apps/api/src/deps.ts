import type { Logger } from "@llmgw/log";
import type { Store } from "@llmgw/store";
import type { Config } from "./config";
import type { EventHub } from "./events/eventHub";
import type { Mirror } from "./mirror/scanner";
import type { World } from "./world";

/**
 * The leaf ports the app is built from: what it reads and writes, and nothing that runs. What
 * this process controls (the scheduler's runtime, wakes, pulls) is control/'s `Control`, handed
 * beside it. Tests build it with an in-memory store and a temp mirror.
 */
export type Deps = {
  config: Config;
  store: Store;
  hub: EventHub;
  world: World;
  mirror: Mirror;
  now: () => Date;
  /** This process, as its stored events name it (events/relay.ts tells its own from others'). */
  origin: string;
  /** The process's logger (log.ts); silent unless `openDeps` is given one. */
  log: Logger;
};

import type { Logger } from "@llmgw/log";
import type { Store } from "@llmgw/store";
import type { Config } from "./config";
import type { EventHub } from "./events/eventHub";
import type { Mirror } from "./mirror/scanner";
import type { SchedulerRuntime } from "./scheduler/runtime";
import type { World } from "./world";

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
  pulls: Pulls;
};

/**
 * The pulls this process downloads, as the rest sees them: services/pullRunner.ts's `PullRunner`
 * (which takes `Deps`, so this file names only what it is asked).
 */
export type Pulls = {
  /** `llmgw serve`: takes up what a restart left and keeps looking for work. */
  start(deps: Deps): Promise<void>;
  /** Claims queued pulls while this process has room for them. */
  nudge(deps: Deps): void;
  /** Once a pull this process runs has ended. */
  settled(id: string): Promise<void>;
  cancel(id: string): Promise<void>;
  stop(): Promise<void>;
};

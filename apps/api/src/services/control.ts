import type { Model } from "@llmgw/domain";

/**
 * What the services ask of this process's control (control/control.ts's `Control`), and nothing
 * else of it: a wake, a nudge of the scheduler, and the pulls it downloads. Declared here, by what
 * is asked, as the gateway declares its own (gateway/control.ts): no service imports control/.
 */
export type ControlFace = {
  /**
   * An on-demand model is wanted now (SPEC §2.6, §7.2): the wake is stored (any process may take
   * it; the one that schedules hears of it by NOTIFY) and the scheduler is asked to run.
   */
  wake(model: Model, at: Date): Promise<void>;
  /** Asks the scheduler, if it runs here, for a run soon (a change announces no event of its own). */
  nudge(): void;
  /** On-demand models woken, with when: the planner wants one replica of each until idle. */
  readonly wakes: ReadonlyMap<string, number>;
  /** Claims queued pulls while this process has room for them (a new pull, SPEC §10.4). */
  nudgePulls(): void;
  /** Stops a pull this process runs; resolves once its files are gone. */
  cancelPull(id: string): Promise<void>;
};

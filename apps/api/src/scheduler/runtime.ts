import { SchedulerStats } from "./stats";

// What the runtime holds of the loop and the lock: only what it asks of them, so this file (on
// `Deps`) imports nothing of the scheduler that takes `Deps` back.

/** The reconcile loop as the runtime sees it (scheduler/index.ts's `Scheduler`). */
type Loop = { nudge(): void };
/** The leader lock as the runtime sees it (scheduler/leader.ts's `Leadership`). */
type Lock = { readonly held: boolean };

/**
 * What one app's scheduler holds while it runs: the loop, the leader lock, the queue that keeps
 * runs from overlapping, and the figures `/metrics` shows. Made once with the app's Deps
 * (`deps.runtime`), so the loop, routes that nudge it and the metrics page reach the same one.
 */
export class SchedulerRuntime {
  /** The reconcile loop, while one runs (`startScheduler` sets it, its `stop` clears it). */
  loop: Loop | null = null;
  /** The leader lock, while this process tries for it (`startLeadership`). */
  leadership: Lock | null = null;
  /** The last run started: runs never overlap, whoever starts them, so the next waits for it. */
  queue: Promise<unknown> = Promise.resolve();
  readonly stats = new SchedulerStats();
  /**
   * The requests on each replica summed over every process, as the autoscaler (autoscale/) last
   * summed them: a draining replica stops once it has none (SPEC §9.3). The wanted replicas it
   * works out are not here: the planner reads them from the snapshot (`snap.autoscale`).
   */
  inFlight: ReadonlyMap<string, number> = new Map();

  /** Asks the loop, if one runs, for a run soon (a wake announces no event of its own). */
  nudge(): void {
    this.loop?.nudge();
  }

  /** Whether this process is the scheduler's leader; one started without a lock (tests) is. */
  get leads(): boolean {
    return this.leadership?.held ?? true;
  }
}

import { SchedulerStats } from "./stats";

// What the runtime holds of the loop and the lock: only what it asks of them, so this file (held
// by control/control.ts's `Control`) imports nothing of the scheduler that takes the runtime back.

/** The reconcile loop as the runtime sees it (scheduler/index.ts's `Scheduler`). */
type Loop = { nudge(): void };
/** The leader lock as the runtime sees it (scheduler/leader.ts's `Leadership`). */
type Lock = { readonly held: boolean };

/**
 * What one app's scheduler holds while it runs: the loop, the leader lock, the queue that keeps
 * runs from overlapping, and the figures `/metrics` shows. Made once with the app's `Control`
 * (`control.runtime`), so the loop, routes that nudge it and the metrics page reach the same one.
 */
export class SchedulerRuntime {
  /** The reconcile loop, while one runs (`startScheduler` sets it, its `stop` clears it). */
  loop: Loop | null = null;
  /** The leader lock, while this process tries for it (`startLeadership`). */
  leadership: Lock | null = null;
  /** The last run started: runs never overlap, whoever starts them, so the next waits for it. */
  queue: Promise<unknown> = Promise.resolve();
  readonly stats = new SchedulerStats();
  /** Replicas draining as the last run left them: when this process's last request on one ends, it asks for a run. */
  draining: ReadonlySet<string> = new Set();
  /** In how many ms a draining replica with no request may stop (the last run says), or null. */
  drainDueMs: number | null = null;

  /** This process's last request on `replica` ended: a draining one may stop now (SPEC §11.2). */
  replicaIdle(replica: string): void {
    if (this.draining.has(replica)) this.nudge();
  }

  /** Asks the loop, if one runs, for a run soon (a wake announces no event of its own). */
  nudge(): void {
    this.loop?.nudge();
  }

  /** Whether this process is the scheduler's leader; one started without a lock (tests) is. */
  get leads(): boolean {
    return this.leadership?.held ?? true;
  }
}

/**
 * What the scheduler and the autoscaler run on in a process: the runtime and the on-demand wakes,
 * with when each was woken. control/control.ts's `Control` holds them; this names only what is asked.
 */
export type SchedulerState = {
  readonly runtime: SchedulerRuntime;
  readonly wakes: Map<string, number>;
};

/**
 * What the planner takes from the autoscaler (autoscale/'s `Autoscaler`) on every run, handed to
 * `startScheduler` and `runOnce` as an argument: the wanted replicas of each autoscaled model
 * (SPEC §9.3), and the requests on each replica over every process, so that a draining replica
 * stops once none is left on it (SPEC §9.3, §11.2). Read when the run plans, not before.
 */
export interface ScaleReading {
  /** Each autoscaled model's wanted replicas, as the autoscaler last worked them out. */
  wanted(): ReadonlyMap<string, number>;
  /** The requests on each replica: this process's now, the other processes' as last read. */
  inFlight(): ReadonlyMap<string, number>;
}

/** No autoscaler (a test's bare run): nothing wanted beyond each model's floor, nothing in flight. */
export const NO_SCALE_READING: ScaleReading = { wanted: () => new Map(), inFlight: () => new Map() };

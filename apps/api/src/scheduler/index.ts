import type { EventType, Schedule } from "@llmgw/domain";
import type { Deps } from "../deps";
import { adoptRunningOnDemand, alwaysLeader, type LeaderCheck, ownEvents, runOnce } from "./reconcile";

export { type LeaderCheck, runOnce } from "./reconcile";
export { SchedulerRuntime } from "./runtime";

export interface SchedulerOptions {
  /** A run at least this often (ms): catches what no event announces, such as wakes going idle. */
  intervalMs?: number;
  /** How long after a change the run starts (ms), so a burst of changes makes one run. */
  debounceMs?: number;
  /** Asked before every run; the advisory lock of SPEC §4 slots in here. */
  leader?: LeaderCheck;
}

export interface Scheduler {
  /** Asks for a run soon (after the debounce); runs asked for meanwhile are one. */
  nudge(): void;
  /** Resolves once no run is waiting or running: for tests, instead of sleeping. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** What a change must be about to need a run. */
const TRIGGERS: ReadonlySet<EventType> = new Set([
  "model.changed",
  "model.removed",
  "node.changed",
  "replica.changed",
  "quota.changed",
]);

/**
 * The reconcile loop (SPEC §2.6): a run shortly after every change that can matter and every
 * `intervalMs`, never two at once. Null when LLMGW_SCHEDULER=off: replicas then come only from
 * agents' heartbeats.
 */
export function startScheduler(deps: Deps, options: SchedulerOptions = {}): Scheduler | null {
  if (!deps.config.scheduler) return null;
  const { intervalMs = 5_000, debounceMs = 75, leader = alwaysLeader } = options;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let current: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let waiting: (() => void)[] = [];
  /** How long the last run took: the next waits at least as long (see `nudge`). */
  let lastRunMs = 0;

  const settle = () => {
    if (timer || current) return;
    for (const resolve of waiting) resolve();
    waiting = [];
  };
  const run = () => {
    timer = null;
    const started = performance.now();
    current = runOnce(deps, leader)
      .then((plan: Schedule | null) => {
        // Writes a heartbeat overtook were left: plan again from the newer state.
        if (plan && deps.runtime.stats.lastSkipped > 0) again = true;
      })
      .catch((err: unknown) => deps.log.error({ err }, "scheduler run failed"))
      .finally(() => {
        lastRunMs = performance.now() - started;
        current = null;
        if (again && !stopped) {
          again = false;
          nudge();
        }
        settle();
      });
  };
  // A burst does not push the run back: under a steady stream of heartbeats a resetting
  // debounce would never fire. Nor do runs follow each other closer than one takes: on a large
  // fleet a run costs a good part of a second, and under a stream of changing beats back-to-back
  // runs would take the whole core the beats and reads need (at most half of it, this way).
  const nudge = () => {
    if (stopped) return;
    if (current) again = true;
    else timer ??= setTimeout(run, Math.max(debounceMs, lastRunMs));
  };

  const unsubscribe = deps.hub.subscribe((event) => {
    if (!TRIGGERS.has(event.type)) return;
    if (typeof event.data === "object" && event.data !== null && ownEvents.has(event.data)) return;
    nudge();
  });
  const interval = setInterval(nudge, intervalMs);
  interval.unref();
  current = adoptRunningOnDemand(deps)
    .catch((err: unknown) => deps.log.error({ err }, "scheduler could not read the fleet"))
    .finally(() => {
      current = null;
      again = false;
      nudge();
    });

  const scheduler: Scheduler = {
    nudge,
    idle: () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        settle();
      }),
    async stop() {
      stopped = true;
      unsubscribe();
      clearInterval(interval);
      if (timer) clearTimeout(timer);
      timer = null;
      await current;
      settle();
      if (deps.runtime.loop === scheduler) deps.runtime.loop = null;
    },
  };
  deps.runtime.loop = scheduler;
  return scheduler;
}

import type { EventType, Schedule } from "@llmgw/domain";
import type { Deps } from "../deps";
import { watchErrorRatio } from "../rollout/advance";
import { adoptRunningOnDemand, alwaysLeader, type LeaderCheck, ownEvents, runOnce } from "./reconcile";
import type { ScaleReading, SchedulerState } from "./runtime";

export { type LeaderCheck, type RunOptions, runOnce } from "./reconcile";
export { type ScaleReading, SchedulerRuntime } from "./runtime";

export interface SchedulerOptions {
  /** A run at least this often (ms): catches what no event announces, such as wakes going idle. */
  intervalMs?: number;
  /** How long after a change the run starts (ms), so a burst of changes makes one run. */
  debounceMs?: number;
  /**
   * The same after a heartbeat's change (`node.changed`, `replica.changed`): a fleet's agents
   * report in waves, and a node joining wants no placement within a blink the way a wake does.
   */
  fleetDebounceMs?: number;
  /** Asked before every run; the advisory lock of SPEC §4 slots in here. */
  leader?: LeaderCheck;
  /**
   * The autoscaler (`startAutoscaler`, started first): every run reads its wanted replicas and
   * requests per replica from it. Without one, the planner wants each model's floor and sees no request.
   */
  scale?: ScaleReading;
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
  "model.scaled",
]);

/** What heartbeats announce: runs they ask for wait `fleetDebounceMs`. */
const FLEET: ReadonlySet<EventType> = new Set(["node.changed", "replica.changed"]);

/**
 * The reconcile loop (SPEC §2.6): a run shortly after every change that can matter and every
 * `intervalMs`, never two at once. Null when LLMGW_SCHEDULER=off: replicas then come only from
 * agents' heartbeats.
 */
export function startScheduler(
  deps: Deps,
  control: SchedulerState,
  options: SchedulerOptions = {},
): Scheduler | null {
  if (!deps.config.scheduler) return null;
  const { runtime } = control;
  const {
    intervalMs = 5_000,
    debounceMs = 75,
    fleetDebounceMs = 250,
    leader = alwaysLeader,
    scale,
  } = options;
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** When the waiting timer fires (performance.now()). */
  let due = 0;
  let current: Promise<void> | null = null;
  /** The shortest wait asked for while a run was going: the next run follows it. */
  let again: number | null = null;
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
    current = runOnce(deps, control, { leader, scale })
      .then((plan: Schedule | null) => {
        // Writes a heartbeat overtook were left: plan again from the newer state.
        if (plan && runtime.stats.lastSkipped > 0) again = Math.min(again ?? debounceMs, debounceMs);
        // A drained replica stops as soon as its settle is over, not at the next interval.
        const drainDue = plan ? runtime.drainDueMs : null;
        if (drainDue !== null) again = Math.min(again ?? drainDue, drainDue);
      })
      .catch((err: unknown) => deps.log.error({ err }, "scheduler run failed"))
      .finally(() => {
        lastRunMs = performance.now() - started;
        current = null;
        if (again !== null && !stopped) {
          const wait = again;
          again = null;
          nudge(wait);
        }
        settle();
      });
  };
  // A burst does not push the run back: under a steady stream of heartbeats a resetting
  // debounce would never fire. Nor do runs follow each other closer than one takes: on a large
  // fleet a run costs a good part of a second, and under a stream of changing beats back-to-back
  // runs would take the whole core the beats and reads need (at most half of it, this way).
  // A nudge that wants a run sooner than the waiting timer brings it forward; a later one waits.
  const nudge = (waitMs = debounceMs) => {
    if (stopped) return;
    if (current) {
      again = Math.min(again ?? waitMs, waitMs);
      return;
    }
    const at = performance.now() + Math.max(waitMs, lastRunMs);
    if (timer && due <= at) return;
    if (timer) clearTimeout(timer);
    due = at;
    timer = setTimeout(run, at - performance.now());
  };

  const unsubscribe = deps.hub.subscribe((event) => {
    if (!TRIGGERS.has(event.type)) return;
    if (typeof event.data === "object" && event.data !== null && ownEvents.has(event.data)) return;
    nudge(FLEET.has(event.type) ? fleetDebounceMs : debounceMs);
  });
  const unwatch = watchErrorRatio(deps, () => nudge());
  const interval = setInterval(() => nudge(), intervalMs);
  interval.unref();
  current = adoptRunningOnDemand(deps, control.wakes)
    .catch((err: unknown) => deps.log.error({ err }, "scheduler could not read the fleet"))
    .finally(() => {
      current = null;
      again = null;
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
      unwatch();
      clearInterval(interval);
      if (timer) clearTimeout(timer);
      timer = null;
      await current;
      settle();
      if (runtime.loop === scheduler) runtime.loop = null;
    },
  };
  runtime.loop = scheduler;
  return scheduler;
}

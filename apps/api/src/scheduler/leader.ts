import { type LeaderLock, leaderLock } from "@llmgw/store";
import type { Deps } from "../deps";
import type { LeaderCheck } from "./reconcile";
import type { SchedulerRuntime } from "./runtime";

export interface Leadership {
  /** For the scheduler: answers from the last check, so a run costs no round trip. */
  readonly check: LeaderCheck;
  readonly held: boolean;
  stop(): Promise<void>;
}

/**
 * Keeps trying for the scheduler's lock (SPEC §4: one process places replicas at a time) every
 * `retryMs`; while held, the same check proves the lock's connection is still alive. `onGain` runs
 * when this process becomes the leader, so the new leader plans at once rather than at its next
 * interval. A process whose lock connection drops stops scheduling at its next check.
 */
export async function startLeadership(
  deps: Deps,
  runtime: SchedulerRuntime,
  options: { retryMs?: number; onGain?: () => void } = {},
): Promise<Leadership> {
  const { retryMs = 2_000, onGain } = options;
  // Alone on PGlite the process always leads: nothing worth saying.
  const worthSaying = deps.store.kind !== "pglite";
  const lock: LeaderLock = leaderLock({ kind: deps.store.kind, databaseUrl: deps.config.databaseUrl });
  let was = false;
  const tick = async () => {
    const now = await lock.check().catch(() => false);
    if (now !== was && worthSaying) {
      if (now) deps.log.info("this process now runs the scheduler");
      else deps.log.warn("scheduler lock lost");
    }
    const gained = now && !was;
    was = now;
    if (gained) onGain?.();
  };
  await tick();
  const timer = setInterval(() => void tick(), retryMs);
  timer.unref();
  const leadership: Leadership = {
    check: async () => lock.held,
    get held() {
      return lock.held;
    },
    async stop() {
      clearInterval(timer);
      if (runtime.leadership === leadership) runtime.leadership = null;
      await lock.close();
    },
  };
  runtime.leadership = leadership;
  return leadership;
}

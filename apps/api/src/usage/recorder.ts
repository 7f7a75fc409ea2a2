import { HOUR_MS, USAGE_KEPT_DAYS } from "@llmgw/domain";
import type { Deps } from "../deps";
import type { SchedulerRuntime } from "../scheduler/runtime";
import { countReplicaTime, REPLICA_IDLE_MS, readyReplicas } from "./replicaTime";
import type { UsageTally } from "./tally";

/** SPEC §12.1: a process adds its counts to the store at most once a second. */
export const USAGE_RECORD_MS = 1000;
const KEPT_MS = USAGE_KEPT_DAYS * 24 * HOUR_MS;

export interface UsageRecorder {
  /** Writes what was counted since the last write (one transaction; none when nothing was). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  stop(): Promise<void>;
}

/**
 * Writes this process's tally to the store once a second in one write transaction, the way the
 * autoscaler records demand (§9.1): so several processes sum, and one killed loses at most its
 * last second. The scheduler's leader also counts replica time (replicaTime.ts) in the same
 * transaction, and deletes hours older than 400 days, once an hour.
 */
export function startUsageRecorder(
  deps: Deps,
  /** Whether this process leads the scheduler (only the leader counts replica time). */
  scheduler: Pick<SchedulerRuntime, "leads">,
  tally: UsageTally,
  options: { intervalMs?: number } = {},
): UsageRecorder {
  let running: Promise<void> | null = null;
  let lastPrune = 0;
  let lastReplicaCount = 0;

  const write = async () => {
    const rows = tally.take();
    const now = deps.now().getTime();
    const leads = scheduler.leads;
    const prune = leads && now - lastPrune >= HOUR_MS;
    try {
      const ready = leads ? readyReplicas(await deps.world.snapshot()) : [];
      const countReplicas = leads && (ready.length > 0 || now - lastReplicaCount >= REPLICA_IDLE_MS);
      if (rows.length === 0 && !prune && !countReplicas) return;
      await deps.store.transaction(async (tx) => {
        await tx.usage.add(rows);
        if (countReplicas) await countReplicaTime(tx, now, ready);
        if (prune) await tx.usage.prune(now - KEPT_MS);
      });
      if (prune) lastPrune = now;
      if (countReplicas) lastReplicaCount = now;
    } catch (err) {
      tally.putBack(rows);
      deps.log.error({ err }, "recording usage failed (kept for the next second)");
    }
  };
  const flush = () => {
    running ??= write().finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => void flush(), options.intervalMs ?? USAGE_RECORD_MS);
  timer.unref();
  return {
    flush: async () => {
      await running;
      await flush();
    },
    async stop() {
      clearInterval(timer);
      await running;
      await flush();
    },
  };
}

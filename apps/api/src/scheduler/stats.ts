import type { Schedule } from "@llmgw/domain";
import type { Deps } from "../deps";

type Kind = "place" | "evict" | "stop" | "pending" | "remove" | "heldBack";
const KINDS: readonly Kind[] = ["place", "evict", "stop", "pending", "remove", "heldBack"];

/** What `/metrics` says about the scheduler (SPEC §3): runs, time spent, the last run's decisions. */
export class SchedulerStats {
  runs = 0;
  errors = 0;
  seconds = 0;
  lastSeconds = 0;
  /** Writes the last run left because a heartbeat changed their replica first. */
  lastSkipped = 0;
  last: Record<Kind, number> = { place: 0, evict: 0, stop: 0, pending: 0, remove: 0, heldBack: 0 };

  recordRun(plan: Schedule, seconds: number, skipped: number): void {
    this.runs += 1;
    this.seconds += seconds;
    this.lastSeconds = seconds;
    this.lastSkipped = skipped;
    for (const kind of KINDS) this.last[kind] = plan[kind].length;
  }

  recordError(seconds: number): void {
    this.errors += 1;
    this.seconds += seconds;
  }

  lines(enabled: boolean): string[] {
    const out = [
      "# HELP llmgw_scheduler_enabled Whether this process places replicas (LLMGW_SCHEDULER).",
      "# TYPE llmgw_scheduler_enabled gauge",
      `llmgw_scheduler_enabled ${enabled ? 1 : 0}`,
      "# HELP llmgw_scheduler_runs_total Reconcile runs completed.",
      "# TYPE llmgw_scheduler_runs_total counter",
      `llmgw_scheduler_runs_total ${this.runs}`,
      "# HELP llmgw_scheduler_errors_total Reconcile runs that failed.",
      "# TYPE llmgw_scheduler_errors_total counter",
      `llmgw_scheduler_errors_total ${this.errors}`,
      "# HELP llmgw_scheduler_seconds_sum Time spent reconciling.",
      "# TYPE llmgw_scheduler_seconds_sum counter",
      `llmgw_scheduler_seconds_sum ${this.seconds.toFixed(6)}`,
      "# HELP llmgw_scheduler_last_seconds Time the last run took.",
      "# TYPE llmgw_scheduler_last_seconds gauge",
      `llmgw_scheduler_last_seconds ${this.lastSeconds.toFixed(6)}`,
      "# HELP llmgw_scheduler_last_decisions What the last run decided, by kind.",
      "# TYPE llmgw_scheduler_last_decisions gauge",
    ];
    for (const kind of KINDS) out.push(`llmgw_scheduler_last_decisions{kind="${kind}"} ${this.last[kind]}`);
    return out;
  }
}

const stats = new WeakMap<Deps, SchedulerStats>();

/** The scheduler's figures for one app (kept beside it, not in it: Deps stays what builds the app). */
export function statsOf(deps: Deps): SchedulerStats {
  let found = stats.get(deps);
  if (!found) {
    found = new SchedulerStats();
    stats.set(deps, found);
  }
  return found;
}

import type { Schedule } from "@llmgw/domain";

export const DECISION_KINDS = ["place", "evict", "stop", "drain", "pending", "remove", "heldBack"] as const;
type Kind = (typeof DECISION_KINDS)[number];

/** The scheduler's figures (SPEC §3): runs, time spent, the last run's decisions; metrics/scheduler.ts shows them. */
export class SchedulerStats {
  runs = 0;
  errors = 0;
  seconds = 0;
  lastSeconds = 0;
  /** Writes the last run left because a heartbeat changed their replica first. */
  lastSkipped = 0;
  last: Record<Kind, number> = { place: 0, evict: 0, stop: 0, drain: 0, pending: 0, remove: 0, heldBack: 0 };

  recordRun(plan: Schedule, seconds: number, skipped: number): void {
    this.runs += 1;
    this.seconds += seconds;
    this.lastSeconds = seconds;
    this.lastSkipped = skipped;
    for (const kind of DECISION_KINDS) this.last[kind] = plan[kind].length;
  }

  recordError(seconds: number): void {
    this.errors += 1;
    this.seconds += seconds;
  }
}

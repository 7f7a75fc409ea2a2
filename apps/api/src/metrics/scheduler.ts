import { Counter, Gauge, type Registry } from "prom-client";
import type { Deps } from "../deps";
import type { SchedulerRuntime } from "../scheduler/runtime";
import { DECISION_KINDS } from "../scheduler/stats";

/**
 * What `/metrics` says about the scheduler (SPEC §3): runs, time spent, the last run's decisions.
 * The scheduler keeps its figures in `SchedulerStats`; these series read them when scraped.
 */
export function registerSchedulerSeries(registry: Registry, deps: Deps, runtime: SchedulerRuntime): void {
  // Read when scraped, like every series here: building the app reads nothing.
  const stats = () => runtime.stats;
  /** A counter showing a figure kept elsewhere (prom-client counters only go up by `inc`). */
  const counter = (name: string, help: string, value: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(value());
      },
    });
  const gauge = (name: string, help: string, value: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value());
      },
    });

  gauge("llmgw_scheduler_enabled", "Whether this process places replicas (LLMGW_SCHEDULER).", () =>
    deps.config.scheduler && runtime.leads ? 1 : 0,
  );
  counter("llmgw_scheduler_runs_total", "Reconcile runs completed.", () => stats().runs);
  counter("llmgw_scheduler_errors_total", "Reconcile runs that failed.", () => stats().errors);
  counter("llmgw_scheduler_seconds_sum", "Time spent reconciling.", () => stats().seconds);
  gauge("llmgw_scheduler_last_seconds", "Time the last run took.", () => stats().lastSeconds);
  new Gauge({
    name: "llmgw_scheduler_last_decisions",
    help: "What the last run decided, by kind.",
    labelNames: ["kind"] as const,
    registers: [registry],
    collect() {
      const { last } = stats();
      for (const kind of DECISION_KINDS) this.set({ kind }, last[kind]);
    },
  });
}

import { Gauge, Registry } from "prom-client";
import type { Deps } from "../deps";
import type { SchedulerRuntime } from "../scheduler/runtime";
import { registerAutoscaleSeries } from "./autoscale";
import { registerFleetSeries } from "./fleet";
import { HttpTimings } from "./http";
import { registerRolloutSeries } from "./rollout";
import { registerSchedulerSeries } from "./scheduler";

export { IDLE_GATEWAY, PromGatewayMeter } from "./gateway";
export { RecentTraffic, sharedTraffic } from "./recentTraffic";
export { startTraffic, trafficOf } from "./traffic";

/**
 * One app's Prometheus registry (SPEC §3, §7.7): never prom-client's global one, since a process
 * (a test file) builds many apps and each must count alone. Series from the world snapshot and the
 * scheduler's figures are read when scraped; HTTP timings count as they happen, and so does the
 * gateway's meter, registered on the same registry (`new PromGatewayMeter({ registry, now })`).
 */
export class AppMetrics {
  readonly registry = new Registry();
  readonly http: HttpTimings;
  /** When the page being computed began (scrapes are rare; one that overlaps shares it). */
  #pageStarted = 0;

  constructor(deps: Deps, scheduler: SchedulerRuntime) {
    registerFleetSeries(this.registry, deps);
    registerSchedulerSeries(this.registry, deps, scheduler);
    registerAutoscaleSeries(this.registry, deps);
    registerRolloutSeries(this.registry, deps);
    this.http = new HttpTimings(this.registry);
    new Gauge({
      name: "llmgw_mirror_files_hashing",
      help: "Complete mirror files whose SHA-256 is still being computed or waits to be (0: settled).",
      registers: [this.registry],
      collect() {
        this.set(deps.mirror.hashing());
      },
    });
    const metrics = this;
    new Gauge({
      name: "llmgw_metrics_seconds",
      help: "Time to compute this page.",
      registers: [this.registry],
      async collect() {
        // Reading the snapshot is what a page costs; every gauge of the page waits for the same one.
        await deps.world.snapshot();
        this.set((performance.now() - metrics.#pageStarted) / 1000);
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text of `GET /metrics`. */
  page(): Promise<string> {
    this.#pageStarted = performance.now();
    return this.registry.metrics();
  }
}

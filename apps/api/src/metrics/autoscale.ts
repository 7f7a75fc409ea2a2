import type { Registry } from "prom-client";
import type { Deps } from "../deps";
import { perModelGauge } from "./perModel";

/**
 * What `/metrics` says about autoscaling (SPEC §9.5), per autoscaled model, as this process last
 * worked it out (every process sums the same demand and reads the leader's wanted): read when
 * scraped.
 */
export function registerAutoscaleSeries(registry: Registry, deps: Deps): void {
  const perModel = (
    name: string,
    help: string,
    value: (view: { demand: number; wanted: number }) => number,
  ) => perModelGauge(registry, () => deps.world.autoscale, name, help, value);
  perModel(
    "llmgw_autoscale_demand",
    "Requests in flight or queued for an autoscaled model, summed over every process.",
    (view) => view.demand,
  );
  perModel(
    "llmgw_autoscale_wanted_replicas",
    "Replicas an autoscaled model's traffic wants, held for autoscale.scaleDownSeconds.",
    (view) => view.wanted,
  );
}

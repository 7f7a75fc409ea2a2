import { capacityByClass } from "@llmgw/domain";
import { Counter, Gauge, type Registry } from "prom-client";
import type { Deps } from "../deps";

const DIMENSIONS = ["memoryGB", "cpuCores", "gpus"] as const;
const REPLICA_STATES = ["pending", "starting", "ready", "stopping", "failed"] as const;

/** Headroom the rules cannot give a number for (no profile fits anywhere) is NaN, as before. */
const orNaN = (value: number | null) => value ?? Number.NaN;

/**
 * What `/metrics` says about the catalogue and fleet (SPEC §3): capacity by class, headroom per
 * model, replicas by state. Each gauge reads the world snapshot when scraped, so a page is the
 * state at that moment (scrapes within one snapshot share it: `World.snapshot` is one promise).
 */
export function registerFleetSeries(registry: Registry, deps: Deps): void {
  const { world } = deps;
  new Gauge({
    name: "llmgw_capacity",
    help: "Fleet resources by class (used) and free.",
    labelNames: ["class", "resource"] as const,
    registers: [registry],
    async collect() {
      const capacity = capacityByClass((await world.snapshot()).index);
      this.reset();
      for (const resource of DIMENSIONS) {
        this.set({ class: "(total)", resource }, capacity.total[resource]);
        this.set({ class: "(free)", resource }, capacity.free[resource]);
        for (const row of capacity.byClass) this.set({ class: row.class, resource }, row[resource]);
      }
    },
  });
  new Gauge({
    name: "llmgw_headroom",
    help: "Replicas a model could get more.",
    labelNames: ["model", "kind"] as const,
    registers: [registry],
    async collect() {
      const snap = await world.snapshot();
      this.reset();
      for (const h of snap.headroom.values()) {
        this.set({ model: h.model, kind: "free" }, orNaN(h.free));
        this.set({ model: h.model, kind: "byPreemption" }, orNaN(h.byPreemption));
        this.set({ model: h.model, kind: "total" }, orNaN(h.total));
      }
    },
  });
  new Gauge({
    name: "llmgw_replicas",
    help: "Replicas by state.",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      const snap = await world.snapshot();
      const states = new Map<string, number>();
      for (const r of snap.replicas) states.set(r.state, (states.get(r.state) ?? 0) + 1);
      for (const state of REPLICA_STATES) this.set({ state }, states.get(state) ?? 0);
    },
  });
  new Counter({
    name: "llmgw_snapshot_loads_total",
    help: "Times the whole catalogue and fleet were read from the store.",
    registers: [registry],
    collect() {
      // The world counts; the counter shows its figure (prom-client counters only go up by inc).
      this.reset();
      this.inc(world.loads);
    },
  });
}

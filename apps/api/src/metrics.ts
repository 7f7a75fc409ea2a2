import { capacityByClass } from "@llmgw/domain";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { Deps } from "./deps";
import { isLeader } from "./scheduler/leader";
import { statsOf } from "./scheduler/stats";

/** HTTP timings by method and route pattern (not raw path: model names would explode the series). */
export class HttpTimings {
  readonly #series = new Map<string, { count: number; seconds: number }>();

  middleware(): MiddlewareHandler {
    return async (c, next) => {
      const start = performance.now();
      await next();
      const key = `method="${c.req.method}",route="${routePath(c)}",status="${c.res.status}"`;
      const entry = this.#series.get(key) ?? { count: 0, seconds: 0 };
      entry.count += 1;
      entry.seconds += (performance.now() - start) / 1000;
      this.#series.set(key, entry);
    };
  }

  lines(): string[] {
    const out = [
      "# HELP llmgw_http_requests_total HTTP requests answered.",
      "# TYPE llmgw_http_requests_total counter",
    ];
    for (const [key, v] of this.#series) out.push(`llmgw_http_requests_total{${key}} ${v.count}`);
    out.push(
      "# HELP llmgw_http_request_seconds_sum Time spent answering.",
      "# TYPE llmgw_http_request_seconds_sum counter",
    );
    for (const [key, v] of this.#series)
      out.push(`llmgw_http_request_seconds_sum{${key}} ${v.seconds.toFixed(6)}`);
    return out;
  }
}

const label = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/** Prometheus text (SPEC §3): capacity by class, headroom per model, replicas by state, timings. */
export async function metricsText(deps: Deps, timings: HttpTimings): Promise<string> {
  const started = performance.now();
  const snap = await deps.world.snapshot();
  const capacity = capacityByClass(snap.index);
  const out: string[] = [
    "# HELP llmgw_capacity Fleet resources by class (used) and free.",
    "# TYPE llmgw_capacity gauge",
  ];
  for (const dim of ["memoryGB", "cpuCores", "gpus"] as const) {
    out.push(`llmgw_capacity{class="(total)",resource="${dim}"} ${capacity.total[dim]}`);
    out.push(`llmgw_capacity{class="(free)",resource="${dim}"} ${capacity.free[dim]}`);
    for (const row of capacity.byClass)
      out.push(`llmgw_capacity{class="${label(row.class)}",resource="${dim}"} ${row[dim]}`);
  }
  out.push("# HELP llmgw_headroom Replicas a model could get more.", "# TYPE llmgw_headroom gauge");
  for (const h of snap.headroom.values()) {
    const m = label(h.model);
    out.push(`llmgw_headroom{model="${m}",kind="free"} ${h.free ?? "NaN"}`);
    out.push(`llmgw_headroom{model="${m}",kind="byPreemption"} ${h.byPreemption ?? "NaN"}`);
    out.push(`llmgw_headroom{model="${m}",kind="total"} ${h.total ?? "NaN"}`);
  }
  const states = new Map<string, number>();
  for (const r of snap.replicas) states.set(r.state, (states.get(r.state) ?? 0) + 1);
  out.push("# HELP llmgw_replicas Replicas by state.", "# TYPE llmgw_replicas gauge");
  for (const state of ["pending", "starting", "ready", "stopping", "failed"]) {
    out.push(`llmgw_replicas{state="${state}"} ${states.get(state) ?? 0}`);
  }
  out.push(
    "# HELP llmgw_snapshot_loads_total Times the whole catalogue and fleet were read from the store.",
    "# TYPE llmgw_snapshot_loads_total counter",
    `llmgw_snapshot_loads_total ${deps.world.loads}`,
  );
  out.push(...statsOf(deps).lines(deps.config.scheduler && isLeader(deps)));
  out.push(...timings.lines());
  out.push("# HELP llmgw_metrics_seconds Time to compute this page.", "# TYPE llmgw_metrics_seconds gauge");
  out.push(`llmgw_metrics_seconds ${((performance.now() - started) / 1000).toFixed(6)}`);
  return `${out.join("\n")}\n`;
}

import { describe, expect, it } from "vitest";
import { createApp } from "../src/app";
import { beatPlaced, heartbeat, modelInput, replicaReport, useApi } from "./harness";
import { bucketsOf, type Page, parsePage, samplesOf, sampleValue } from "./prometheus";

// GET /metrics through prom-client: every series the hand-written page had (SPEC §3) keeps its
// name, type, labels and meaning; misc.test.ts checks a few lines as text.

const api = useApi();

async function scrape(app = api.app): Promise<{ page: Page; contentType: string | null }> {
  const res = await app.request("/metrics");
  expect(res.status).toBe(200);
  return { page: parsePage(await res.text()), contentType: res.headers.get("content-type") };
}

/** Two models (one batch), two nodes, a ready and a starting replica, and a few API reads. */
async function seededWorld() {
  const batch = await (await api.client.models.$post({ json: modelInput({ class: "batch" }) })).json();
  const standard = await (await api.client.models.$post({ json: modelInput() })).json();
  await beatPlaced(
    api,
    heartbeat({
      node: { memoryGB: 64, cpuCount: 16 },
      replicas: [
        replicaReport({ model: batch.name }),
        replicaReport({ model: standard.name, state: "starting" }),
      ],
    }),
  );
  await api.client.agents.heartbeat.$post({ json: heartbeat({ node: { memoryGB: 32, cpuCount: 8 } }) });
  await api.client.models[":name"].$get({ param: { name: batch.name } });
  await api.client.models[":name"].$get({ param: { name: "no-such-model" } });
  return { batch, standard };
}

const OLD_FAMILIES: [string, string][] = [
  ["llmgw_capacity", "gauge"],
  ["llmgw_headroom", "gauge"],
  ["llmgw_replicas", "gauge"],
  ["llmgw_snapshot_loads_total", "counter"],
  ["llmgw_scheduler_enabled", "gauge"],
  ["llmgw_scheduler_runs_total", "counter"],
  ["llmgw_scheduler_errors_total", "counter"],
  ["llmgw_scheduler_seconds_sum", "counter"],
  ["llmgw_scheduler_last_seconds", "gauge"],
  ["llmgw_scheduler_last_decisions", "gauge"],
  ["llmgw_http_requests_total", "counter"],
  ["llmgw_metrics_seconds", "gauge"],
];

describe("GET /metrics", () => {
  it("answers Prometheus text with the families and types the hand-written page had", async () => {
    await seededWorld();

    const { page, contentType } = await scrape();

    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const [name, type] of OLD_FAMILIES) expect([name, page.types.get(name)]).toEqual([name, type]);
    // The time spent answering was a hand-written `_sum`; it is now a histogram's, same series.
    expect(page.types.get("llmgw_http_request_seconds")).toBe("histogram");
  });

  it("reports capacity by class, headroom per model and replicas by state as the API does", async () => {
    const { batch, standard } = await seededWorld();
    const capacity = await (await api.client.capacity.$get()).json();
    const headroom = await (await api.client.headroom.$get()).json();

    const { page } = await scrape();

    for (const resource of ["memoryGB", "cpuCores", "gpus"] as const) {
      expect(sampleValue(page, "llmgw_capacity", { class: "(total)", resource })).toBe(
        capacity.total[resource],
      );
      expect(sampleValue(page, "llmgw_capacity", { class: "(free)", resource })).toBe(
        capacity.free[resource],
      );
      for (const row of capacity.byClass) {
        expect(sampleValue(page, "llmgw_capacity", { class: row.class, resource })).toBe(row[resource]);
      }
    }
    expect(sampleValue(page, "llmgw_capacity", { class: "batch", resource: "memoryGB" })).toBe(8);
    for (const model of [batch.name, standard.name]) {
      const h = headroom.find((row) => row.model === model);
      for (const kind of ["free", "byPreemption", "total"] as const) {
        expect(sampleValue(page, "llmgw_headroom", { model, kind })).toEqual(h?.[kind] ?? Number.NaN);
      }
    }
    expect(samplesOf(page, "llmgw_replicas").map((s) => [s.labels.state, s.value])).toEqual([
      ["pending", 0],
      ["starting", 1],
      ["ready", 1],
      ["stopping", 0],
      ["failed", 0],
    ]);
  });

  it("writes NaN for a headroom without a number (a model that needs nothing), as before", async () => {
    const free = await (
      await api.client.models.$post({ json: modelInput({ need: { minMemoryGB: 0, cpuCores: 0, gpus: 0 } }) })
    ).json();
    expect(free.headroom.total).toBeNull();

    const { page } = await scrape();

    expect(sampleValue(page, "llmgw_headroom", { model: free.name, kind: "total" })).toBeNaN();
  });

  it("reads the world when scraped: a model added since the last page is on the next", async () => {
    await scrape();
    const added = await (await api.client.models.$post({ json: modelInput() })).json();

    const { page } = await scrape();

    expect(samplesOf(page, "llmgw_headroom", { model: added.name })).toHaveLength(3);
    expect(sampleValue(page, "llmgw_snapshot_loads_total")).toBe(api.deps.world.loads);
  });

  it("shows the scheduler's figures", async () => {
    const { stats } = api.control.runtime;
    const before = stats.runs;
    stats.recordRun(
      { place: [], evict: [], stop: [], drain: [], pending: [], remove: [], heldBack: [] },
      0.25,
      0,
    );

    const { page } = await scrape();

    expect(sampleValue(page, "llmgw_scheduler_runs_total")).toBe(before + 1);
    expect(sampleValue(page, "llmgw_scheduler_last_seconds")).toBe(0.25);
    expect(sampleValue(page, "llmgw_scheduler_seconds_sum")).toBe(stats.seconds);
    expect(sampleValue(page, "llmgw_scheduler_last_decisions", { kind: "place" })).toBe(0);
    expect(sampleValue(page, "llmgw_scheduler_enabled")).toBe(1);
  });

  it("times HTTP requests by route pattern: a counter and a histogram whose count matches it", async () => {
    const model = await (await api.client.models.$post({ json: modelInput() })).json();
    const route = { method: "GET", route: "/api/v1/models/:name", status: "200" };
    // One app per file: the counts go on from the earlier tests.
    const before = sampleValue((await scrape()).page, "llmgw_http_requests_total", route) ?? 0;
    await api.client.models[":name"].$get({ param: { name: model.name } });

    const { page } = await scrape();

    expect(sampleValue(page, "llmgw_http_requests_total", route)).toBe(before + 1);
    expect(sampleValue(page, "llmgw_http_request_seconds_count", route)).toBe(before + 1);
    expect(sampleValue(page, "llmgw_http_request_seconds_sum", route)).toBeGreaterThan(0);
    const buckets = bucketsOf(page, "llmgw_http_request_seconds", route);
    expect([...buckets.keys()].at(-1)).toBe("+Inf");
    expect(buckets.get("+Inf")).toBe(before + 1);
    const counts = [...buckets.values()];
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(page.samples.some((s) => s.labels.route === `/api/v1/models/${model.name}`)).toBe(false);
  });

  it("counts per app: a second app on the same store starts from nothing and registers without clashing", async () => {
    await api.client.capacity.$get();
    const other = createApp(api.deps, api.control);

    const { page } = await scrape(other);

    expect(samplesOf(page, "llmgw_http_requests_total")).toEqual([]);
    expect(sampleValue(page, "llmgw_capacity", { class: "(total)", resource: "memoryGB" })).toBe(0);
  });
});

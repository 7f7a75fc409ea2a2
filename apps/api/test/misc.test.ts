import { TEST_STORE } from "@llmgw/store/testing";
import { describe, expect, it, vi } from "vitest";
import { beatPlaced, errorOf, heartbeat, modelInput, replicaReport, useApi } from "./harness";

// The smaller routes (classes, capacity, openapi.json, healthz, metrics) and what every route
// shares: the error shape for unknown paths, bodies that are not JSON, and bodies too large.

const api = useApi();

describe("GET /classes", () => {
  it("answers the default classes, highest rank first", async () => {
    const classes = await (await api.client.classes.$get()).json();

    expect(classes.map((c) => [c.name, c.rank])).toEqual([
      ["critical", 300],
      ["standard", 200],
      ["batch", 100],
    ]);
  });
});

describe("GET /capacity", () => {
  it("is all zeros on an empty fleet", async () => {
    const capacity = await (await api.client.capacity.$get()).json();

    expect(capacity.total).toEqual({ memoryGB: 0, cpuCores: 0, gpus: 0 });
    expect(capacity.free).toEqual({ memoryGB: 0, cpuCores: 0, gpus: 0 });
    // Whether the scheduler places replicas: the Capacity page's health line says so.
    expect(capacity.scheduler).toBe(api.deps.config.scheduler);
  });

  it("totals the ready nodes and what each class holds", async () => {
    const model = await (await api.client.models.$post({ json: modelInput({ class: "batch" }) })).json();
    await beatPlaced(
      api,
      heartbeat({
        node: { memoryGB: 64, cpuCount: 16 },
        replicas: [replicaReport({ model: model.name })],
      }),
    );
    await api.client.agents.heartbeat.$post({ json: heartbeat({ node: { memoryGB: 32, cpuCount: 8 } }) });

    const capacity = await (await api.client.capacity.$get()).json();

    expect(capacity.total).toEqual({ memoryGB: 96, cpuCores: 24, gpus: 0 });
    expect(capacity.free).toEqual({ memoryGB: 88, cpuCores: 20, gpus: 0 });
    expect(capacity.byClass).toContainEqual({
      class: "batch",
      memoryGB: 8,
      cpuCores: 4,
      gpus: 0,
      replicas: 1,
    });
  });
});

describe("GET /healthz", () => {
  it("says the process is alive and the store answers", async () => {
    const res = await api.app.request("/healthz");

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, store: TEST_STORE });
  });

  it("is a 503 when the store does not answer", async () => {
    const query = vi.spyOn(api.deps.store.sql, "query").mockRejectedValueOnce(new Error("gone"));

    const res = await api.app.request("/healthz");
    query.mockRestore();

    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ ok: false, store: TEST_STORE });
  });
});

describe("GET /metrics", () => {
  it("answers Prometheus text with capacity, headroom per model, replicas by state and timings", async () => {
    const model = await (await api.client.models.$post({ json: modelInput() })).json();
    await beatPlaced(api, heartbeat({ replicas: [replicaReport({ model: model.name })] }));
    await api.client.models[":name"].$get({ param: { name: model.name } });

    const res = await api.app.request("/metrics");
    const text = await res.text();

    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    expect(text).toContain('llmgw_capacity{class="(total)",resource="memoryGB"} 64');
    expect(text).toContain('llmgw_capacity{class="standard",resource="memoryGB"} 8');
    expect(text).toContain(`llmgw_headroom{model="${model.name}",kind="free"} 3`);
    expect(text).toContain('llmgw_replicas{state="ready"} 1');
    // Timings by route pattern, not by path: a series per model name would never end.
    expect(text).toMatch(
      /llmgw_http_requests_total\{method="GET",route="\/api\/v1\/models\/:name",status="200"\} 1/,
    );
    expect(text).not.toContain(`route="/api/v1/models/${model.name}"`);
  });
});

describe("what every route shares", () => {
  it("answers an unknown /api path with a 404 in the error shape", async () => {
    const res = await api.app.request("/api/v1/no/such/thing");

    const error = await errorOf(res, 404);
    expect(error.code).toBe("not_found");
    expect(error.message).toContain("GET /api/v1/no/such/thing");
  });

  it("answers a method a path does not take with a 404 in the error shape", async () => {
    const res = await api.app.request("/api/v1/quotas", { method: "DELETE" });

    expect((await errorOf(res, 404)).code).toBe("not_found");
  });

  it("answers a body that is not valid JSON with a 400 in the error shape", async () => {
    const res = await api.app.request("/api/v1/models", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{ this is not json",
    });

    expect((await errorOf(res, 400)).code).toBe("bad_request");
  });

  it("answers a body that is not sent as JSON with a 415 in the error shape", async () => {
    const res = await api.app.request("/api/v1/models", {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: JSON.stringify(modelInput()),
    });

    const error = await errorOf(res, 415);
    expect(error.fields).toEqual({ body: "expected application/json" });
    expect(await api.deps.store.models.list()).toEqual([]);
  });

  it("answers a body over 1 MiB with a 413 in the error shape", async () => {
    const big = { ...modelInput(), description: "x".repeat(1024 * 1024 + 1) };

    const res = await api.app.request("/api/v1/models", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(big),
    });

    expect((await errorOf(res, 413)).code).toBe("payload_too_large");
  });
});

import type { BenchProgressEvent, ModelView, StoredBench } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { benchesOf } from "../src/app";
import { runOnce } from "../src/scheduler";
import { until, useGateway } from "./gateway-kit";
import { beatOk, heartbeat } from "./harness";

// `POST /models/:name/bench` (SPEC §5): the dashboard's "Measure", run by the server through its
// own gateway in the background, progress as `model.bench` events, the result stored on the model.

const gw = useGateway();

/** Every `model.bench` event of `model` from now on, and a promise of the one that ends the run. */
function watchBench(model: string) {
  const seen: BenchProgressEvent[] = [];
  let end: (event: BenchProgressEvent) => void = () => {};
  const ended = new Promise<BenchProgressEvent>((resolve) => {
    end = resolve;
  });
  const off = gw.api.deps.hub.subscribeEphemeral((event) => {
    if (event.type !== "model.bench" || event.data.model !== model) return;
    seen.push(event.data);
    if (!event.data.running) {
      off();
      end(event.data);
    }
  });
  return { seen, ended };
}

const post = (name: string, body: unknown = {}) =>
  fetch(`${gw.url}/api/v1/models/${name}/bench`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

async function modelOf(name: string): Promise<ModelView> {
  const res = await gw.api.client.models[":name"].$get({ param: { name } });
  return (await res.json()) as ModelView;
}

describe("POST /models/:name/bench", () => {
  it("starts a bench in the background, refuses a second while it runs, and stores the result", async () => {
    const model = await gw.model({ scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 } });
    const engine = await gw.engine({ replyTokens: 4, tokensPerSecond: 2000 });
    await gw.ready(model, [engine]);
    const release = engine.hold();
    const watch = watchBench(model.name);

    const started = await post(model.name, { concurrency: [1, 2], requests: 3, maxTokens: 4 });
    expect(started.status).toBe(202);
    expect(await started.json()).toMatchObject({ model: model.name, by: "local", total: 6 });
    const again = await post(model.name);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: "bench_running" } });

    release();
    const ended = await watch.ended;

    expect(ended).toMatchObject({ running: false, done: 6, total: 6, errors: 0, error: null });
    expect(watch.seen[0]).toMatchObject({ running: true, done: 0, total: 6 });
    const bench = (await modelOf(model.name)).bench as StoredBench;
    expect(bench.by).toBe("local");
    expect(bench.runs.map((r) => [r.concurrency, r.requests, r.errors])).toEqual([
      [1, 3, 0],
      [2, 3, 0],
    ]);
    expect(bench.runs.every((r) => r.tokensPerSecond > 0)).toBe(true);
    // Through the request path like a client's: the meter counted them (the warm-up too).
    expect(gw.outcomes.filter((o) => o.model === model.name)).toHaveLength(7);
    const [entry] = await gw.api.deps.store.audit.list({ model: model.name, limit: 1 });
    expect(entry).toMatchObject({ action: "bench", by: "local", target: model.name });
    expect((await modelOf(model.name)).version).toBe(model.version);
    // Ended: another may start.
    const next = await post(model.name, { concurrency: [1], requests: 1 });
    expect(next.status).toBe(202);
    expect(await watchBench(model.name).ended).toMatchObject({ error: null });
  });

  it("ends at once with the gateway's no_capacity reason, storing nothing", async () => {
    await beatOk(gw.api, heartbeat());
    const model = await gw.model({ need: { minMemoryGB: 4096 } });
    const watch = watchBench(model.name);

    expect((await post(model.name, { requests: 32 })).status).toBe(202);
    await until(async () => (await gw.api.deps.store.wakes.list()).has(model.name), "the wake to be stored");
    await runOnce(gw.api.deps, gw.api.control);
    const ended = await watch.ended;

    expect(ended.error).toMatch(/4096|GB/);
    expect(ended.error).toContain("no_capacity");
    expect(ended.done).toBe(0);
    expect((await modelOf(model.name)).bench).toBeUndefined();
  });

  it("stops with the server, storing nothing of a bench cut short", async () => {
    const model = await gw.model({ scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 } });
    const engine = await gw.engine();
    await gw.ready(model, [engine]);
    engine.hold();
    const watch = watchBench(model.name);
    const app = gw.api.app;

    const started = await app.request(`/api/v1/models/${model.name}/bench`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ concurrency: [1], requests: 2 }),
    });
    expect(started.status).toBe(202);
    await engine.nth(1);
    await benchesOf(app)?.closeAll();

    expect((await watch.ended).error).toMatch(/^stopped: .*the server is stopping/);
    expect((await modelOf(model.name)).bench).toBeUndefined();
  });

  it("is a 404 for a model that is not there, and a 400 naming a field out of range", async () => {
    expect((await post("no-such-model")).status).toBe(404);
    const model = await gw.model();
    const bad = await post(model.name, { concurrency: [0] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { fields: { "concurrency.0": expect.any(String) } } });
  });
});

describe("PUT /models/:name/bench", () => {
  const result = (model: string) => ({
    model,
    runs: [
      {
        concurrency: 4,
        requests: 32,
        errors: 0,
        ttftMs: { p50: 180, p95: 240 },
        itlMsP50: 20,
        tokensPerSecond: 41,
        tokensPerSecondPerRequest: 12,
        requestsPerSecond: 1.2,
      },
    ],
    measuredMemoryGB: 5.2,
    replicas: [],
  });

  it("stores a result measured elsewhere as the model's bench, stamped with who and when", async () => {
    const model = await gw.model();
    const res = await gw.api.client.models[":name"].bench.$put({
      param: { name: model.name },
      json: result(model.name),
    });
    expect(res.status).toBe(200);
    expect((await modelOf(model.name)).bench).toEqual({
      ...result(model.name),
      at: expect.any(String),
      by: "local",
    });
  });

  it("refuses a result of another model, naming the field, and stores nothing", async () => {
    const model = await gw.model();
    const res = await gw.api.client.models[":name"].bench.$put({
      param: { name: model.name },
      json: result("another"),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { fields: { model: expect.any(String) } } });
    expect((await modelOf(model.name)).bench).toBeUndefined();
  });
});

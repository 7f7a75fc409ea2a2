import { APIError } from "openai";
import { describe, expect, it } from "vitest";
import { runOnce } from "../src/scheduler";
import { until, useGateway } from "./gateway-kit";
import { beatOk, heartbeat } from "./harness";

// Waiting (SPEC §7.2–7.4): a request for a model with no ready replica wakes it and waits in the
// model's queue, within its bounds; it is sent when a replica turns ready, and never once its client
// has gone.

const gw = useGateway();
const ask = (model: string, content = "hi", signal?: AbortSignal) =>
  gw
    .client()
    .chat.completions.create({ model, messages: [{ role: "user", content }] }, signal ? { signal } : {});
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: unknown) => e as APIError,
  );

const queued = (model: string) => gw.now().models.get(model)?.queued ?? 0;

function limits(maxQueue: number, maxWaitSeconds: number) {
  gw.api.config.gateway.maxQueue = maxQueue;
  gw.api.config.gateway.maxWaitSeconds = maxWaitSeconds;
}

describe("wake on request", () => {
  it("wakes an on-demand model once and sends its waiters in arrival order when a replica turns ready", async () => {
    limits(16, 30);
    const node = heartbeat();
    await beatOk(gw.api, node);
    const model = await gw.model();
    const engine = await gw.engine();

    const first = ask(model.name, "first");
    await until(async () => (await gw.api.deps.store.wakes.list()).has(model.name), "the wake to be stored");
    const second = ask(model.name, "second");
    await runOnce(gw.api.deps, gw.api.control);
    const placed = (await gw.api.deps.store.replicas.list()).filter((r) => r.model === model.name);
    expect(placed).toMatchObject([{ node: node.node.name, state: "starting" }]);
    expect(engine.received).toEqual([]);

    await beatOk(gw.api, {
      ...node,
      replicas: placed.map((r) => ({
        id: r.id,
        model: model.name,
        state: "ready" as const,
        endpoint: engine.url,
      })),
    });
    await Promise.all([first, second]);

    expect(
      engine.received.map((r) => (r.body as { messages: { content: string }[] }).messages[0]?.content),
    ).toEqual(["first", "second"]);
    expect(gw.coldStarts).toEqual([{ model: model.name, ms: expect.any(Number) }]);
    expect(gw.outcomes.every((o) => o.queuedMs > 0)).toBe(true);
  });

  it("answers 503 no_capacity with the scheduler's reason when the wake can be placed nowhere", async () => {
    limits(16, 30);
    await beatOk(gw.api, heartbeat());
    const model = await gw.model({ need: { minMemoryGB: 4096 } });

    const answer = refusal(ask(model.name));
    await until(async () => (await gw.api.deps.store.wakes.list()).has(model.name), "the wake to be stored");
    await runOnce(gw.api.deps, gw.api.control);
    const err = await answer;

    expect(err).toBeInstanceOf(APIError);
    expect(err).toMatchObject({ status: 503, code: "no_capacity" });
    expect(err?.message).toMatch(/4096|GB/);
    expect(err?.headers?.get("retry-after")).toMatch(/^\d+$/);
  });

  it("queues an always model with no ready replica the same way, without a wake", async () => {
    limits(16, 30);
    const model = await gw.model({ scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 } });
    const engine = await gw.engine();

    const answer = ask(model.name);
    await until(() => queued(model.name) === 1, "the request to wait");
    await gw.ready(model, [engine]);
    await answer;

    expect(engine.received).toHaveLength(1);
    expect((await gw.api.deps.store.wakes.list()).has(model.name)).toBe(false);
  });

  it("is a 503 model_stopped for a stopped model", async () => {
    const model = await gw.model({ scaling: { min: 0, max: 0 } });

    const err = await refusal(ask(model.name));

    expect(err).toMatchObject({ status: 503, code: "model_stopped" });
    expect(err?.headers?.get("retry-after")).toMatch(/^\d+$/);
  });
});

describe("queue bounds", () => {
  it("is a 503 queue_full past gateway.maxQueue waiting, and a client that leaves frees its place", async () => {
    limits(1, 30);
    const model = await gw.model();
    const leaving = new AbortController();
    const waiting = refusal(ask(model.name, "waits", leaving.signal));
    await until(() => queued(model.name) === 1, "the first to queue");

    const full = await refusal(ask(model.name));
    expect(full).toMatchObject({ status: 503, code: "queue_full" });
    expect(full?.headers?.get("retry-after")).toMatch(/^\d+$/);

    leaving.abort();
    await waiting;
    await until(() => queued(model.name) === 0, "the gateway to see the client leave");
    const engine = await gw.engine();
    const next = ask(model.name, "after");
    await gw.ready(model, [engine]);
    await next;
    expect(
      engine.received.map((r) => (r.body as { messages: { content: string }[] }).messages[0]?.content),
    ).toEqual(["after"]);
  });

  it("is a 503 wait_timeout once gateway.maxWaitSeconds pass from arrival", async () => {
    limits(16, 0.3);
    const model = await gw.model();
    const started = performance.now();

    const err = await refusal(ask(model.name));

    expect(err).toMatchObject({ status: 503, code: "wait_timeout" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });
});

describe("idle", () => {
  it("records the wake again at the end of each request, so idle counts from the last one", async () => {
    limits(16, 30);
    const model = await gw.model();
    const engine = await gw.engine();
    await gw.ready(model, [engine]);
    engine.knobs.delayMs = 300;
    const sent = Date.now();

    await ask(model.name);

    await until(
      async () => ((await gw.api.deps.store.wakes.list()).get(model.name) ?? 0) >= sent + 300,
      "the wake to be refreshed at the request's end",
    );
    expect(gw.api.control.wakes.get(model.name) ?? 0).toBeGreaterThanOrEqual(sent + 300);
  });

  it("keeps the wake fresh while a request is in flight, so a long answer never lets the model idle", async () => {
    limits(16, 30);
    const model = await gw.model({ scaling: { min: 0, max: 1, idleTimeoutSeconds: 2 } });
    const engine = await gw.engine();
    await gw.ready(model, [engine]);
    const release = engine.hold();
    const answer = ask(model.name);
    await engine.nth(1);
    const sent = Date.now();

    await until(
      async () => ((await gw.api.deps.store.wakes.list()).get(model.name) ?? 0) >= sent + 900,
      "the wake to be refreshed while the request runs",
    );
    release();
    await answer;
  });
});

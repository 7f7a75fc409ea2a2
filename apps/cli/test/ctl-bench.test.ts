import { type BenchResult, benchResultSchema, type ModelView, type StoredBench } from "@llmgw/domain";
import { replicaOf } from "@llmgw/domain/testing";
import { StandInEngine } from "@llmgw/simulation";
import { afterEach, describe, expect, it } from "vitest";
import { fresh, useCtl } from "./ctl-harness";

// `llmgw ctl bench` end to end: the command against the API in process, its chat completions
// through the real gateway to stand-in engines on loopback, the result stored on the model.

const t = useCtl();
const engines: StandInEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

async function engine(): Promise<StandInEngine> {
  const started = await StandInEngine.start({ tokensPerSecond: 2000, replyTokens: 6 });
  engines.push(started);
  return started;
}

/** A model on a pool of its own: ondemand (no replica until woken) or always. */
async function model(options: { ondemand?: boolean; memoryGB?: number } = {}) {
  const selector = { pool: fresh("pool") };
  const view = await t.addModel({
    scaling: options.ondemand
      ? { min: 0, max: 1, idleTimeoutSeconds: 900 }
      : { min: 1, max: 1, idleTimeoutSeconds: 900 },
    need: { nodeSelector: selector, minMemoryGB: options.memoryGB ?? 8 },
  });
  const node = await t.addNode({ name: fresh("node"), labels: selector });
  return { view, node, selector };
}

/** The model's replica placed on `node` (as the scheduler would) and reported ready at `engine`'s URL. */
async function serve(view: ModelView, node: string, selector: Record<string, string>, at: StandInEngine) {
  const id = fresh("replica");
  const { replicas, headroom, quota, mode, ...stored } = view;
  await t.deps.store.transaction((tx) =>
    tx.replicas.upsert(
      replicaOf(stored, { id, node, state: "starting", startedAt: new Date().toISOString() }),
    ),
  );
  t.deps.world.invalidate();
  await t.addNode({ name: node, labels: selector }, [
    { id, model: view.name, state: "ready", endpoint: at.url, measuredMemoryGB: 5.2 },
  ]);
}

type Sent = { stream?: boolean; stream_options?: { include_usage?: boolean }; max_tokens?: number };
const bodies = (e: StandInEngine) => e.received.map((r) => r.body as Sent);

describe("llmgw ctl bench", () => {
  it("measures each concurrency through the gateway, prints the SPEC's object and stores it", async () => {
    const { view, node, selector } = await model();
    const e = await engine();
    await serve(view, node, selector, e);

    const run = await t.ctl([
      "bench",
      view.name,
      "--concurrency",
      "1,3",
      "--requests",
      "6",
      "--max-tokens",
      "5",
      "--prompt-tokens",
      "20",
      "--json",
    ]);

    expect(run.stderr).toContain(`bench ${view.name}: 3 concurrent`);
    expect(run.code, run.stderr).toBe(0);
    const result = benchResultSchema.parse(JSON.parse(run.stdout)) satisfies BenchResult;
    expect(result.model).toBe(view.name);
    expect(result.runs.map((r) => [r.concurrency, r.requests, r.errors])).toEqual([
      [1, 6, 0],
      [3, 6, 0],
    ]);
    for (const r of result.runs) {
      expect(r.ttftMs.p50).toBeGreaterThan(0);
      expect(r.ttftMs.p95).toBeGreaterThanOrEqual(r.ttftMs.p50 ?? 0);
      expect(r.itlMsP50).toBeGreaterThanOrEqual(0);
      expect(r.tokensPerSecond).toBeGreaterThan(0);
      expect(r.requestsPerSecond).toBeGreaterThan(0);
    }
    expect(result.measuredMemoryGB).toBe(5.2);
    // One warm-up, then 6 at each concurrency; every one streamed, with usage asked for.
    expect(bodies(e)).toHaveLength(13);
    expect(bodies(e).every((b) => b.stream === true && b.stream_options?.include_usage === true)).toBe(true);
    expect(
      bodies(e)
        .slice(1)
        .every((b) => b.max_tokens === 5),
    ).toBe(true);

    const shown = (await (
      await t.client().models[":name"].$get({ param: { name: view.name } })
    ).json()) as ModelView;
    expect(shown.bench).toEqual({ ...result, at: expect.any(String), by: "local" } satisfies StoredBench);
    expect(shown.version).toBe(view.version);
    const audit = await t.deps.store.audit.list({ model: view.name });
    expect(audit[0]).toMatchObject({ action: "bench", by: "local", target: view.name });
  });

  it("counts the requests an engine fails as errors, and measures the rest", async () => {
    const { view, node, selector } = await model();
    const e = await engine();
    await serve(view, node, selector, e);
    // The first measured request fails, and so does the gateway's one retry of it.
    e.on("request", () => {
      if (e.received.length === 2) e.knobs.failNext.push(503, 503);
    });

    const run = await t.ctl(["bench", view.name, "--concurrency", "1", "--requests", "4", "--json"]);

    expect(run.code, run.stderr).toBe(0);
    const [only] = benchResultSchema.parse(JSON.parse(run.stdout)).runs;
    expect(only).toMatchObject({ concurrency: 1, requests: 4, errors: 1 });
    expect(only?.tokensPerSecond).toBeGreaterThan(0);
  });

  it("wakes an on-demand model before it measures, so no run waits for the wake", async () => {
    const { view, node, selector } = await model({ ondemand: true });
    const e = await engine();

    const running = t.ctl(["bench", view.name, "--concurrency", "2", "--requests", "4", "--json"]);
    await until(async () => (await t.deps.store.wakes.list()).has(view.name));
    expect(e.received).toEqual([]);
    await serve(view, node, selector, e);
    const run = await running;

    expect(run.code, run.stderr).toBe(0);
    const result = benchResultSchema.parse(JSON.parse(run.stdout));
    expect(result.runs).toMatchObject([{ concurrency: 2, requests: 4, errors: 0 }]);
    // The warm-up asked for one token; the four measured requests came after it was answered.
    expect(bodies(e).map((b) => b.max_tokens)).toEqual([1, 128, 128, 128, 128]);
  });

  it("ends at once with the gateway's reason when the model cannot be woken", async () => {
    const { view } = await model({ ondemand: true, memoryGB: 4096 });
    const { replicas, headroom, quota, mode, ...stored } = view;
    const reason = "needs 4096 GB of memory; the largest node has 64 GB";
    await t.deps.store.transaction((tx) =>
      tx.replicas.upsert(replicaOf(stored, { id: fresh("replica"), node: null, state: "pending", reason })),
    );
    t.deps.world.invalidate();

    const run = await t.ctl(["bench", view.name, "--requests", "32"]);

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${view.name} cannot be measured: ${reason} (no_capacity)`);
    expect(run.stdout).toBe("");
    const shown = (await (
      await t.client().models[":name"].$get({ param: { name: view.name } })
    ).json()) as ModelView;
    expect(shown.bench).toBeUndefined();
  });

  it("takes an alias, as the gateway does, and stores the bench on the model it names", async () => {
    const selector = { pool: fresh("pool") };
    const alias = fresh("alias");
    const view = await t.addModel({
      aliases: [alias],
      scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 },
      need: { nodeSelector: selector },
    });
    const node = await t.addNode({ name: fresh("node"), labels: selector });
    await serve(view, node, selector, await engine());

    const run = await t.ctl(["bench", alias, "--concurrency", "1", "--requests", "2"]);

    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^CONCURRENCY +REQUESTS +ERRORS +TTFT-P50/);
    expect(run.stdout).toContain(`as ${view.name}'s bench`);
    const shown = (await (
      await t.client().models[":name"].$get({ param: { name: view.name } })
    ).json()) as ModelView;
    expect(shown.bench?.model).toBe(view.name);
  });

  it("still prints the figures when the server refuses to store them, and says so", async () => {
    const { view, node, selector } = await model();
    await serve(view, node, selector, await engine());
    const app = t.app;
    const refusing: typeof app.request = (input, init, ...rest) =>
      init?.method === "PUT" && String(input).endsWith(`/models/${view.name}/bench`)
        ? Response.json({ error: { code: "forbidden", message: "needs operator" } }, { status: 403 })
        : app.request(input, init, ...rest);

    const run = await t.ctl(["bench", view.name, "--concurrency", "1", "--requests", "2", "--json"], {
      fetch: refusing,
    });

    expect(run.code).toBe(0);
    expect(run.stderr).toContain("the bench was not stored: needs operator");
    expect(benchResultSchema.parse(JSON.parse(run.stdout)).runs).toHaveLength(1);
  });

  it("refuses flags out of range before sending anything", async () => {
    const { view } = await model();
    const run = await t.ctl(["bench", view.name, "--concurrency", "1,0"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--concurrency");
    const zero = await t.ctl(["bench", view.name, "--max-tokens", "0"]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain("--max-tokens");
  });
  it("--shared-prefix N --tenants K: requests of a tenant share a beginning, and the cached share is printed", async () => {
    const { view, node, selector } = await model();
    const cached = await StandInEngine.start({
      tokensPerSecond: 2000,
      replyTokens: 6,
      promptCacheTokens: 100_000,
    });
    engines.push(cached);
    await serve(view, node, selector, cached);

    const args = [
      "bench",
      view.name,
      "--concurrency",
      "1",
      "--requests",
      "16",
      "--shared-prefix",
      "300",
      "--tenants",
      "4",
    ];
    const run = await t.ctl([...args, "--json"]);

    expect(run.code, run.stderr).toBe(0);
    const [only] = benchResultSchema.parse(JSON.parse(run.stdout)).runs;
    // 4 of 16 requests read their tenant's beginning for the first time; the rest find it cached.
    expect(only?.cachedPromptRatio).toBeGreaterThan(0.4);
    const systems = new Set(
      cached.received.map((r) => JSON.stringify((r.body as { messages: unknown[] }).messages[0])),
    );
    expect(systems.size).toBe(4);
    const table = await t.ctl(args);
    expect(table.stdout).toMatch(/CACHED/);
    expect(table.stdout).toMatch(/\d+%/);

    const alone = await t.ctl(["bench", view.name, "--tenants", "4"]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--tenants: needs --shared-prefix");
  });
});

async function until(check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

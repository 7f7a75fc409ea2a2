import type { ModelScaled, Replica } from "@llmgw/domain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Autoscaler, startAutoscaler } from "../src/autoscale/autoscaler";
import { runOnce } from "../src/scheduler";
import { chatAt, TestAgent } from "./autoscale-kit";
import { until, useGateway } from "./gateway-kit";
import { errorOf } from "./harness";
import { parsePage, sampleValue } from "./prometheus";

// SPEC §9 through the API, on the file's store (PGlite, and PostgreSQL in the postgres project):
// real requests through the gateway to stand-in engines, an agent that runs what it is told, and
// the autoscaler and the scheduler driven one step at a time on the app's clock (deps.now), so a
// window of 300 s takes no time. Every test asserts what the engines saw.

const gw = useGateway({ yaml: "autoscale: { drainSeconds: 60 }\n" });
const { api } = gw;

let autoscaler: Autoscaler | null = null;
let agents: TestAgent[] = [];
let scaled: ModelScaled[] = [];
let clock = 0;
let offHub = () => {};

beforeEach(async () => {
  clock = Date.now();
  api.deps.now = () => new Date(clock);
  scaled = [];
  offHub = api.deps.hub.subscribe((event) => {
    if (event.type === "model.scaled") scaled.push(event.data);
  });
  // Ticks only when a test says: the window is on the app's clock.
  autoscaler = await startAutoscaler(api.deps, api.control, {
    demand: () => gw.demand(),
    intervalMs: 3_600_000,
  });
});

afterEach(async () => {
  offHub();
  await autoscaler?.stop();
  for (const agent of agents) await agent.close();
  agents = [];
  api.deps.world.setAutoscale(new Map());
});

/** An agent on a node of its own, which has reported once. */
async function agent(node: Partial<TestAgent["node"]> = {}): Promise<TestAgent> {
  const made = new TestAgent(
    async (body) => (await api.client.agents.heartbeat.$post({ json: body })).json(),
    node,
  );
  agents.push(made);
  await made.beat();
  return made;
}

/** The app's clock moves on; the autoscaler and the scheduler take one step; the agent beats. */
async function step(seconds: number, node?: TestAgent): Promise<void> {
  clock += seconds * 1000;
  await autoscaler?.tick();
  await runOnce(api.deps, api.control, { scale: autoscaler });
  await node?.settle();
}

const chat = (model: string) => chatAt(gw.url, model);

async function view(name: string) {
  return (await api.client.models[":name"].$get({ param: { name } })).json();
}

async function replicas(model: string): Promise<Replica[]> {
  return (await (await api.client.fleet.replicas.$get()).json()).filter((r) => r.model === model);
}

const inFlight = (model: string) => gw.demand().models.get(model)?.inFlight ?? 0;
const queued = (model: string) => gw.demand().models.get(model)?.queued ?? 0;

describe("capacity follows traffic (SPEC §9)", () => {
  it("adds replicas for a burst in the step it comes, holds them through a pause, and goes back to the floor after the window", async () => {
    const node = await agent();
    const model = await gw.model({ scaling: { min: 1, max: 3, idleTimeoutSeconds: 900, targetInFlight: 1 } });
    await step(0, node);
    expect((await replicas(model.name)).map((r) => r.state)).toEqual(["ready"]);

    const release = node.hold();
    const burst = [chat(model.name), chat(model.name), chat(model.name)];
    await until(() => inFlight(model.name) === 3, "three requests in flight");
    await step(0, node);
    expect((await view(model.name)).autoscale).toEqual({
      demand: 3,
      target: 1,
      desired: 3,
      wanted: 3,
      holdUntil: null,
      quotaAllows: null,
    });
    expect(scaled).toEqual([
      {
        model: model.name,
        from: 1,
        to: 3,
        demand: 3,
        reason: "3 requests in flight or queued, 1 per replica: 3 wanted (max 3)",
      },
    ]);
    expect((await replicas(model.name)).map((r) => r.state)).toEqual(["ready", "ready", "ready"]);
    release();
    expect((await Promise.all(burst)).map((r) => r.status)).toEqual([200, 200, 200]);

    // A pause of 200 s, shorter than the 300 s window: nothing is removed.
    const burstAt = clock;
    await step(200, node);
    expect((await view(model.name)).autoscale).toMatchObject({
      demand: 0,
      desired: 1,
      wanted: 3,
      holdUntil: new Date(burstAt + 300_000).toISOString(),
    });
    expect((await replicas(model.name)).map((r) => [r.state, r.drainingSince])).toEqual([
      ["ready", undefined],
      ["ready", undefined],
      ["ready", undefined],
    ]);

    // The window is over: back to the floor, the extras drain, then stop.
    await step(100, node);
    expect(scaled.at(-1)).toEqual({
      model: model.name,
      from: 3,
      to: 1,
      demand: 0,
      reason: "demand at most 1 for 300 s: 1 wanted (min 1, max 3)",
    });
    const draining = (await replicas(model.name)).filter((r) => r.drainingSince !== undefined);
    expect(draining).toHaveLength(2);
    await step(3, node);
    await step(0, node);
    expect((await replicas(model.name)).map((r) => r.state)).toEqual(["ready"]);

    const audit = await (await api.client.audit.$get({ query: { model: model.name } })).json();
    expect(audit.filter((e) => e.action === "scaled").map((e) => [e.by, e.before, e.after])).toEqual([
      ["autoscaler", { wanted: 3 }, { wanted: 1, demand: 0, reason: scaled[1]?.reason }],
      ["autoscaler", { wanted: 1 }, { wanted: 3, demand: 3, reason: scaled[0]?.reason }],
    ]);
    // Every request the engines took was answered: none was cut by a replica stopping.
    expect(node.started.flatMap((e) => e.closedByClient)).toEqual([]);
  });

  it("sends a draining replica no new request, and lets the requests on it finish before it stops", async () => {
    const node = await agent();
    // 6 per replica wanted, 4 slots a replica: the burst of 7 asks for 2; 6 requests for 1.
    const model = await gw.model({ scaling: { min: 1, max: 2, idleTimeoutSeconds: 900, targetInFlight: 6 } });
    await step(0, node);
    let release = node.hold();
    const burst = Array.from({ length: 7 }, () => chat(model.name));
    await until(
      () => inFlight(model.name) === 4 && queued(model.name) === 3,
      "four requests in flight on the first replica, three queued",
    );
    await step(0, node);
    expect((await replicas(model.name)).map((r) => r.state)).toEqual(["ready", "ready"]);
    await until(() => inFlight(model.name) === 7, "the queued requests sent to the second replica");
    release();
    await Promise.all(burst);

    // Requests on both replicas (fewest in flight first), held.
    release = node.hold();
    const held = [chat(model.name), chat(model.name), chat(model.name), chat(model.name)];
    await until(() => inFlight(model.name) === 4, "four requests in flight");

    await step(300, node);
    const [drainingOne] = (await replicas(model.name)).filter((r) => r.drainingSince !== undefined);
    if (!drainingOne) throw new Error("no replica drains");
    const drainingEngine = node.engineOf(drainingOne.id);
    const [stays] = (await replicas(model.name)).filter((r) => r.id !== drainingOne.id);
    const staysEngine = node.engineOf(stays?.id ?? "");
    const onIt = gw.demand().replicas.get(drainingOne.id) ?? 0;
    expect(onIt).toBeGreaterThan(0);
    await until(() => drainingEngine.inFlight === onIt, "the draining replica's requests on its engine");
    const onDraining = drainingEngine.received.length;

    // A new request goes to the replica that stays (it has a free slot: at most 3 of 4 are taken).
    const staysBefore = staysEngine.received.length;
    const more = [chat(model.name)];
    await until(
      () => staysEngine.received.length === staysBefore + 1,
      "the new request on the staying replica",
    );
    expect(drainingEngine.received.length).toBe(onDraining);

    // Its requests are still on it: it keeps running past the settle time.
    await step(5, node);
    expect((await replicas(model.name)).find((r) => r.id === drainingOne.id)).toMatchObject({
      state: "ready",
      drainingSince: drainingOne.drainingSince,
    });
    release();
    expect((await Promise.all([...held, ...more])).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);

    await step(1, node);
    await step(0, node);
    expect((await replicas(model.name)).map((r) => r.id)).toEqual([stays?.id]);
    expect(node.engines.has(drainingOne.id)).toBe(false);
    expect(drainingEngine.closedByClient).toEqual([]);
  });

  it("preempts a lower class for a burst and gives its place back once the burst is over", async () => {
    const node = await agent({ memoryGB: 16, cpuCount: 16 });
    const need = { minMemoryGB: 8, cpuCores: 2 };
    const batch = await gw.model({
      class: "batch",
      need,
      scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 },
    });
    const web = await gw.model({
      class: "critical",
      need,
      scaling: { min: 1, max: 2, idleTimeoutSeconds: 900, targetInFlight: 1 },
    });
    await step(0, node);
    expect((await replicas(batch.name)).map((r) => r.state)).toEqual(["ready"]);

    const release = node.hold();
    const burst = [chat(web.name), chat(web.name)];
    await until(() => inFlight(web.name) === 2, "two requests in flight");
    await step(0, node);
    expect((await view(web.name)).autoscale?.wanted).toBe(2);
    // Preempted: its agent stopped it, and the batch model's wanted replica waits for room.
    expect([...node.engines.values()].map((e) => e.model)).not.toContain(batch.name);
    expect((await replicas(batch.name)).map((r) => [r.state, r.node])).toEqual([["pending", null]]);
    await step(0, node);
    expect((await replicas(web.name)).map((r) => r.state)).toEqual(["ready", "ready"]);
    release();
    expect((await Promise.all(burst)).map((r) => r.status)).toEqual([200, 200]);

    await step(300, node);
    await step(3, node);
    await step(0, node);
    expect((await replicas(web.name)).map((r) => r.state)).toEqual(["ready"]);
    expect((await replicas(batch.name)).map((r) => [r.state, r.node])).toEqual([["ready", node.node.name]]);
  });

  it("stops at the owner's quota and says so; no request fails for it", async () => {
    const node = await agent();
    await api.client.quotas[":owner"].$put({
      param: { owner: "research" },
      json: { memoryGB: null, cpuCores: null, gpus: null, replicas: 2 },
    });
    const model = await gw.model({
      owner: "research",
      scaling: { min: 1, max: 4, idleTimeoutSeconds: 900, targetInFlight: 1 },
    });
    await step(0, node);
    const release = node.hold();
    const burst = [1, 2, 3, 4].map(() => chat(model.name));
    await until(() => inFlight(model.name) === 4, "four requests in flight");
    await step(0, node);
    expect((await view(model.name)).autoscale).toMatchObject({ demand: 4, wanted: 4, quotaAllows: 2 });
    expect((await replicas(model.name)).map((r) => r.state)).toEqual(["ready", "ready"]);
    release();
    expect((await Promise.all(burst)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });

  it("shows demand and wanted replicas per model in /metrics", async () => {
    const node = await agent();
    const model = await gw.model({ scaling: { min: 1, max: 2, idleTimeoutSeconds: 900, targetInFlight: 1 } });
    await step(0, node);
    const release = node.hold();
    const burst = [chat(model.name), chat(model.name)];
    await until(() => inFlight(model.name) === 2, "two requests in flight");
    await step(0, node);
    const page = parsePage(await (await api.app.request("/metrics")).text());
    expect(sampleValue(page, "llmgw_autoscale_demand", { model: model.name })).toBe(2);
    expect(sampleValue(page, "llmgw_autoscale_wanted_replicas", { model: model.name })).toBe(2);
    release();
    await Promise.all(burst);
  });
});

describe("set by the operator (SPEC §9.6)", () => {
  async function patch(name: string, version: number, body: Record<string, unknown>) {
    return api.app.request(`/api/v1/models/${name}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "if-match": `"${version}"` },
      body: JSON.stringify(body),
    });
  }

  it("takes maxReplicas and targetInFlight, each audited", async () => {
    const model = await gw.model({ scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 } });
    const res = await patch(model.name, model.version, { maxReplicas: 4, targetInFlight: 2 });
    expect(res.status).toBe(200);
    expect((await view(model.name)).scaling).toMatchObject({ min: 1, max: 4, targetInFlight: 2 });
    await step(0);
    expect((await view(model.name)).autoscale).toMatchObject({ target: 2, wanted: 1, desired: 1 });
  });

  it.each([
    [{ maxReplicas: 0 }, "maxReplicas"],
    [{ maxReplicas: 65 }, "maxReplicas"],
    [{ maxReplicas: 1 }, "maxReplicas"],
    [{ maxReplicas: "3" }, "maxReplicas"],
    [{ targetInFlight: 0 }, "targetInFlight"],
    [{ targetInFlight: 1.5 }, "targetInFlight"],
  ])("refuses %j naming %s, and stores nothing", async (body, field) => {
    const model = await gw.model({ scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 } });
    const error = await errorOf(
      await patch(model.name, model.version, { ...body, description: "changed" }),
      400,
    );
    expect(Object.keys(error.fields ?? {})).toEqual([field]);
    expect(await view(model.name)).toMatchObject({ version: model.version, description: "" });
  });
});

import type { ModelInput, Replica } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { runOnce, startScheduler } from "../src/scheduler";
import { beatPlaced, createOk, heartbeat, modelInput, replicaReport, useApi } from "./harness";

// SPEC §2.6 through the API: models and agents' heartbeats in, one reconcile run at a time
// (`runOnce`, no timers), replicas and heartbeat replies out.

const api = useApi();

const create = (input?: ModelInput) => createOk(api, input);

const beat = (body: ReturnType<typeof heartbeat>) => beatPlaced(api, body);

async function replicas(model?: string): Promise<Replica[]> {
  const all = await (await api.client.fleet.replicas.$get()).json();
  return all.filter((r) => model === undefined || r.model === model);
}

/** What an agent reports after starting what it was told: the replicas, ready. */
function running(reply: Awaited<ReturnType<typeof beat>>) {
  return reply.replicas.map((r) => replicaReport({ id: r.id, model: r.model }));
}

describe("placing a model's replicas", () => {
  it("places a new model on the node left with the least free memory; the agent is told on its next beat", async () => {
    const big = heartbeat({ node: { memoryGB: 64, cpuCount: 16 } });
    const snug = heartbeat({ node: { memoryGB: 16, cpuCount: 16 } });
    await beat(big);
    await beat(snug);
    const model = await create(
      modelInput({ scaling: { min: 2, max: 2 }, need: { minMemoryGB: 8, cpuCores: 4 } }),
    );

    const plan = await runOnce(api.deps, api.control);

    expect(plan?.place).toHaveLength(2);
    const placed = await replicas(model.name);
    expect(placed.map((r) => [r.node, r.state])).toEqual([
      [snug.node.name, "starting"],
      [snug.node.name, "starting"],
    ]);
    const reply = await beat(snug);
    expect(reply.replicas.map((r) => r.id).sort()).toEqual(placed.map((r) => r.id).sort());
    expect(reply.replicas[0]).toMatchObject({ model: model.name, source: model.source, memoryGB: 8 });
    expect(await replicas(model.name)).toHaveLength(2);

    await beat({ ...snug, replicas: running(reply) });
    expect((await replicas(model.name)).map((r) => r.state)).toEqual(["ready", "ready"]);
    expect((await runOnce(api.deps, api.control))?.place).toEqual([]);
  });

  it("announces each node a run places on with its bar, so a dashboard need not fetch the fleet again", async () => {
    const node = heartbeat({ node: { memoryGB: 64, cpuCount: 16 } });
    await beat(node);
    await create(modelInput({ scaling: { min: 2, max: 2 }, need: { minMemoryGB: 8, cpuCores: 4 } }));
    const before = await api.deps.store.events.latestId();

    await runOnce(api.deps, api.control);

    const events = await api.deps.store.events.since(before);
    expect(events.map((e) => e.type)).toEqual(["replica.changed", "replica.changed", "node.changed"]);
    const [listed] = (await (await api.client.fleet.nodes.$get()).json()).filter(
      (n) => n.name === node.node.name,
    );
    expect(events[2]?.data).toEqual(listed);
    expect(listed?.usage.free).toMatchObject({ memoryGB: 48, cpuCores: 8 });
  });

  it("forgets a placed replica the agent has not started after three heartbeat intervals, and places it again", async () => {
    const node = heartbeat();
    await beat(node);
    const model = await create();
    await runOnce(api.deps, api.control);
    const [placed] = await replicas(model.name);

    const later = Date.now() + 3 * api.config.heartbeatSeconds * 1000 + 1000;
    api.deps.now = () => new Date(later);
    const reply = await beat(node);

    expect(reply.replicas).toEqual([]);
    expect(await replicas(model.name)).toEqual([]);
    await runOnce(api.deps, api.control);
    const [again] = await replicas(model.name);
    expect(again).toMatchObject({ node: node.node.name, state: "starting" });
    expect(again?.id).not.toBe(placed?.id);
  });

  it("leaves a replica pending with its reason when no node fits it", async () => {
    const node = heartbeat({ node: { memoryGB: 16, cpuCount: 16 } });
    await beat(node);
    const model = await create(modelInput({ need: { minMemoryGB: 24, cpuCores: 2 } }));

    await runOnce(api.deps, api.control);

    expect(await replicas(model.name)).toEqual([
      expect.objectContaining({
        node: null,
        state: "pending",
        reason: `no node fits: needs 24 GB, the most free is 16 GB on ${node.node.name}`,
      }),
    ]);
  });

  it("places nothing when LLMGW_SCHEDULER is off, and a beat then keeps only what the agent reports", async () => {
    const node = heartbeat();
    await beat(node);
    const model = await create();
    api.deps.config.scheduler = false;
    try {
      expect(await runOnce(api.deps, api.control)).toBeNull();
      expect(startScheduler(api.deps, api.control)).toBeNull();
      expect(await replicas()).toEqual([]);
      const started = replicaReport({ model: model.name, state: "starting" });
      await beat({ ...node, replicas: [started] });
      await beat(node);
      expect(await replicas()).toEqual([]);
    } finally {
      api.deps.config.scheduler = true;
    }
  });
});

describe("preemption", () => {
  it("stops a batch replica for a critical one, which starts once its agent reports the victim gone", async () => {
    const batch = await create(modelInput({ class: "batch", need: { minMemoryGB: 24, cpuCores: 4 } }));
    const critical = await create(modelInput({ class: "critical", need: { minMemoryGB: 24, cpuCores: 4 } }));
    const victim = replicaReport({ model: batch.name });
    const node = heartbeat({ node: { memoryGB: 32, cpuCount: 16 }, replicas: [victim] });
    await beat(node);

    const plan = await runOnce(api.deps, api.control);

    expect(plan?.evict.map((e) => [e.replica.id, e.className, e.preemptor.model])).toEqual([
      [victim.id, "batch", critical.name],
    ]);
    const stopping = (await replicas(batch.name)).find((r) => r.id === victim.id);
    expect(stopping?.state).toBe("stopping");
    expect(stopping?.reason).toBe(
      `preempted by ${critical.name} (critical), which needs its room on ${node.node.name}`,
    );
    const [waiting] = await replicas(critical.name);
    expect(waiting).toMatchObject({ node: node.node.name, state: "pending" });
    expect(waiting?.reason).toBe(`waits on ${node.node.name} for 1 preempted replica to stop`);

    // The agent still runs the victim: it stays stopping, and nothing is to run until it is gone.
    const stillThere = await beat(node);
    expect(stillThere.replicas).toEqual([]);
    expect((await replicas(batch.name)).find((r) => r.id === victim.id)?.state).toBe("stopping");

    await beat({ ...node, replicas: [] });
    expect((await replicas(batch.name)).find((r) => r.id === victim.id)).toBeUndefined();
    expect((await replicas(critical.name))[0]?.state).toBe("pending");
    await runOnce(api.deps, api.control);
    const reply = await beat({ ...node, replicas: [] });

    expect(reply.replicas).toEqual([expect.objectContaining({ id: waiting?.id, model: critical.name })]);
    expect((await replicas(critical.name))[0]).toMatchObject({ state: "starting", reason: null });
    expect(await replicas(batch.name)).toEqual([
      expect.objectContaining({
        node: null,
        state: "pending",
        reason: expect.stringContaining("no node fits"),
      }),
    ]);
  });

  it("evicts on a dry run's answer: the target's victims are the ones the scheduler then stops", async () => {
    const batch = await create(
      modelInput({ class: "batch", scaling: { min: 2, max: 2 }, need: { minMemoryGB: 16, cpuCores: 2 } }),
    );
    const asked = await create(
      modelInput({ scaling: { min: 0, max: 0 }, need: { minMemoryGB: 16, cpuCores: 2 } }),
    );
    const victims = [replicaReport({ model: batch.name }), replicaReport({ model: batch.name })];
    const node = heartbeat({ node: { memoryGB: 48, cpuCount: 16 }, replicas: victims });
    await beat(node);

    const dry = await (
      await api.client.models[":name"].target.$post({
        param: { name: asked.name },
        json: { replicas: 2, dryRun: true },
      })
    ).json();
    await api.client.models[":name"].target.$post({ param: { name: asked.name }, json: { replicas: 2 } });
    const plan = await runOnce(api.deps, api.control);

    expect(dry).toMatchObject({ outcome: "preempts", largestFit: 3, applied: false });
    expect(dry.victims).toHaveLength(1);
    expect(
      plan?.evict.map((e) => ({
        replica: e.replica.id,
        model: e.replica.model,
        node: e.replica.node,
        class: e.className,
      })),
    ).toEqual(dry.victims);
  });
});

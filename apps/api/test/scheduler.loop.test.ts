import type { ModelInput, Replica } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { runOnce, startScheduler } from "../src/scheduler";
import { beatPlaced, createOk, heartbeat, modelInput, replicaReport, useApi } from "./harness";

// The scheduler over time: drains, on-demand wakes going idle (time from deps.now), and the loop
// itself, driven by the event stream.

const api = useApi();

const create = (input?: ModelInput) => createOk(api, input);

const beat = (body: ReturnType<typeof heartbeat>) => beatPlaced(api, body);

async function replicas(model: string): Promise<Replica[]> {
  return (await (await api.client.fleet.replicas.$get()).json()).filter((r) => r.model === model);
}

function running(reply: Awaited<ReturnType<typeof beat>>) {
  return reply.replicas.map((r) => replicaReport({ id: r.id, model: r.model }));
}

describe("draining a node", () => {
  it("starts a replacement elsewhere first, and stops the old replica once the replacement is ready", async () => {
    const model = await create();
    const old = replicaReport({ model: model.name });
    const draining = heartbeat({ replicas: [old] });
    const other = heartbeat();
    await beat(draining);
    await beat(other);
    await api.client.fleet.nodes[":name"].drain.$post({ param: { name: draining.node.name } });

    await runOnce(api.deps, api.control);
    const [replacement] = (await replicas(model.name)).filter((r) => r.id !== old.id);
    expect(replacement).toMatchObject({ node: other.node.name, state: "starting" });
    expect((await replicas(model.name)).find((r) => r.id === old.id)?.state).toBe("ready");

    await beat({ ...other, replicas: running(await beat(other)) });
    await runOnce(api.deps, api.control);
    expect((await replicas(model.name)).find((r) => r.id === old.id)).toMatchObject({
      state: "stopping",
      reason: `moved off ${draining.node.name}, which is draining`,
    });

    expect((await beat(draining)).replicas).toEqual([]);
    await beat({ ...draining, replicas: [] });
    expect((await replicas(model.name)).map((r) => r.id)).toEqual([replacement?.id]);
  });
});

describe("on-demand models", () => {
  it("runs one replica from a wake until the model has been idle for its timeout", async () => {
    const node = heartbeat();
    await beat(node);
    const model = await create(modelInput({ scaling: { min: 0, max: 2, idleTimeoutSeconds: 60 } }));
    const start = Date.now();
    api.deps.now = () => new Date(start);
    await runOnce(api.deps, api.control);
    expect(await replicas(model.name)).toEqual([]);

    await api.client.models[":name"].wake.$post({ param: { name: model.name } });
    expect(await api.deps.store.wakes.list()).toEqual(new Map([[model.name, start]]));
    // A new leader (this process's memory empty) finds the wake in the store.
    api.control.wakes.clear();
    await runOnce(api.deps, api.control);
    await beat({ ...node, replicas: running(await beat(node)) });
    expect((await replicas(model.name)).map((r) => r.state)).toEqual(["ready"]);

    api.deps.now = () => new Date(start + 59_000);
    await runOnce(api.deps, api.control);
    expect((await replicas(model.name)).map((r) => r.state)).toEqual(["ready"]);

    api.deps.now = () => new Date(start + 60_000);
    await runOnce(api.deps, api.control);
    expect((await replicas(model.name)).map((r) => r.state)).toEqual(["stopping"]);
    expect(api.control.wakes.has(model.name)).toBe(false);
    expect(await api.deps.store.wakes.list()).toEqual(new Map());
  });

  it("takes a wake another process stored, and a later wake outlives the idle end of an earlier one", async () => {
    await beat(heartbeat());
    const model = await create(modelInput({ scaling: { min: 0, max: 1, idleTimeoutSeconds: 60 } }));
    const start = Date.now();
    api.deps.now = () => new Date(start);
    await api.deps.store.wakes.wake(model.name, start);
    await runOnce(api.deps, api.control);
    expect((await replicas(model.name)).map((r) => r.state)).toEqual(["starting"]);

    // Woken again (through another process) 30 s later: idle from then, not from the first wake.
    await api.deps.store.wakes.wake(model.name, start + 30_000);
    await api.deps.store.wakes.wake(model.name, start + 10_000);
    api.deps.now = () => new Date(start + 60_000);
    await runOnce(api.deps, api.control);
    expect((await replicas(model.name)).map((r) => r.state)).toEqual(["starting"]);
    expect(await api.deps.store.wakes.list()).toEqual(new Map([[model.name, start + 30_000]]));
  });
});

describe("the reconcile loop", () => {
  it("runs on changes (debounced, one at a time), not on its own writes, and reports its timings", async () => {
    const scheduler = startScheduler(api.deps, api.control, { intervalMs: 60_000, debounceMs: 5 });
    if (!scheduler) throw new Error("the scheduler is on in tests");
    try {
      await scheduler.idle();
      const runs = Number(/llmgw_scheduler_runs_total (\d+)/.exec(await metrics())?.[1]);
      const node = heartbeat();
      await beat(node);
      const model = await create(modelInput({ scaling: { min: 2, max: 2 } }));
      await scheduler.idle();

      expect((await replicas(model.name)).map((r) => [r.node, r.state])).toEqual([
        [node.node.name, "starting"],
        [node.node.name, "starting"],
      ]);
      const text = await metrics();
      // The beat and the create came within the debounce or one after the other: one or two runs,
      // and none for the scheduler's own replica.changed events.
      const after = Number(/llmgw_scheduler_runs_total (\d+)/.exec(text)?.[1]);
      expect(after - runs).toBeGreaterThanOrEqual(1);
      expect(after - runs).toBeLessThanOrEqual(2);
      expect(text).toMatch(/llmgw_scheduler_seconds_sum \d+\.\d+/);
      expect(text).toContain('llmgw_scheduler_last_decisions{kind="place"} 2');
    } finally {
      await scheduler.stop();
    }
  });
});

describe("the reconcile loop's waits", () => {
  it("waits longer after a heartbeat's change than a model's, and a model's change brings a waiting run forward", async () => {
    // A heartbeat alone would wait a minute: the test's 30 s would run out before idle().
    const scheduler = startScheduler(api.deps, api.control, {
      intervalMs: 60_000,
      debounceMs: 5,
      fleetDebounceMs: 60_000,
    });
    if (!scheduler) throw new Error("the scheduler is on in tests");
    try {
      await scheduler.idle();
      const node = heartbeat();
      await beat(node);
      const model = await create(modelInput({ scaling: { min: 1, max: 1 } }));
      await scheduler.idle();
      expect((await replicas(model.name)).map((r) => r.node)).toEqual([node.node.name]);
    } finally {
      await scheduler.stop();
    }
  });
});

async function metrics(): Promise<string> {
  return (await api.app.request("/metrics")).text();
}

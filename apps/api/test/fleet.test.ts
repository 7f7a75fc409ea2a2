import type { ModelInput } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { markSilentNodesDown } from "../src/services/liveness";
import { beatPlaced, createOk, errorOf, heartbeat, modelInput, replicaReport, useApi } from "./harness";

// POST /agents/heartbeat, GET /fleet/*, drain and resume, GET /capacity.

const api = useApi();

const create = (input?: ModelInput) => createOk(api, input);

const beat = (body: ReturnType<typeof heartbeat>) => beatPlaced(api, body);

async function nodeNamed(name: string) {
  const nodes = await (await api.client.fleet.nodes.$get()).json();
  return nodes.find((n) => n.name === name);
}

describe("POST /agents/heartbeat", () => {
  it("creates the node and its replicas, holding the profile's need, and answers what to run", async () => {
    const model = await create(modelInput({ class: "critical", need: { minMemoryGB: 12, cpuCores: 6 } }));
    const replica = replicaReport({ model: model.name, measuredMemoryGB: 11.2 });
    const body = heartbeat({
      node: { memoryGB: 64, cpuCount: 16, engines: ["llamacpp"] },
      replicas: [replica],
    });

    const reply = await beat(body);

    expect(reply).toEqual({
      intervalSeconds: 5,
      // SPEC §11.6: no rollout keeps an old revision's files cached here.
      keep: [],
      replicas: [
        {
          id: replica.id,
          model: model.name,
          profile: "cpu",
          // SPEC §3, §11.1: the revision each desired replica runs.
          revision: 1,
          engine: "llamacpp",
          source: model.source,
          args: [],
          memoryGB: 12,
          cpuCores: 6,
          gpus: 0,
          // The factory's source is not in this test's mirror: nothing to download (SPEC §8.6).
          files: [],
        },
      ],
    });
    const node = await nodeNamed(body.node.name);
    expect(node).toMatchObject({ state: "ready", memoryGB: 64, cpuCount: 16, engines: ["llamacpp"] });
    expect(node?.usage.free).toEqual({ memoryGB: 52, cpuCores: 10, gpus: 0 });
    expect(node?.usage.byClass).toContainEqual(
      expect.objectContaining({ class: "critical", memoryGB: 12, cpuCores: 6, replicas: 1 }),
    );
    const replicas = await (await api.client.fleet.replicas.$get()).json();
    expect(replicas).toEqual([
      expect.objectContaining({
        id: replica.id,
        model: model.name,
        node: body.node.name,
        state: "ready",
        memoryGB: 12,
        measuredMemoryGB: 11.2,
      }),
    ]);
  });

  it("announces the node and each replica on the event stream", async () => {
    const model = await create();
    const replica = replicaReport({ model: model.name });
    const before = await api.deps.store.events.latestId();

    const body = heartbeat({ replicas: [replica] });
    await beat(body);

    const events = await api.deps.store.events.since(before);
    expect(events.map((e) => e.type)).toEqual(["node.changed", "replica.changed"]);
    expect(events[0]?.data).toMatchObject({ name: body.node.name });
    expect(events[1]?.data).toMatchObject({ id: replica.id });
  });

  it("writes nothing for a second identical heartbeat, but moves lastSeen", async () => {
    const model = await create();
    const body = heartbeat({ node: { freeMemoryGB: 40 }, replicas: [replicaReport({ model: model.name })] });
    await beat(body);
    const firstSeen = (await nodeNamed(body.node.name))?.lastSeen ?? "";
    const latest = await api.deps.store.events.latestId();

    await beat(body);
    await beat({ ...body, node: { ...body.node, freeMemoryGB: 40.2 } });

    expect(await api.deps.store.events.latestId()).toBe(latest);
    const lastSeen = Date.parse((await nodeNamed(body.node.name))?.lastSeen ?? "");
    expect(lastSeen).toBeGreaterThanOrEqual(Date.parse(firstSeen));
  });

  it("writes the node again when its free memory moves by half a gigabyte or more", async () => {
    const body = heartbeat({ node: { freeMemoryGB: 40 } });
    await beat(body);
    const latest = await api.deps.store.events.latestId();

    await beat({ ...body, node: { ...body.node, freeMemoryGB: 30 } });

    const events = await api.deps.store.events.since(latest);
    expect(events.map((e) => e.type)).toEqual(["node.changed"]);
    expect((await nodeNamed(body.node.name))?.freeMemoryGB).toBe(30);
  });

  it("removes a replica the agent no longer reports, and says so", async () => {
    const model = await create();
    const replica = replicaReport({ model: model.name });
    const body = heartbeat({ replicas: [replica] });
    await beat(body);
    const latest = await api.deps.store.events.latestId();

    await beat({ ...body, replicas: [] });

    expect(await (await api.client.fleet.replicas.$get()).json()).toEqual([]);
    const events = await api.deps.store.events.since(latest);
    expect(events.map((e) => [e.type, e.data])).toContainEqual([
      "replica.changed",
      expect.objectContaining({ id: replica.id, removed: true }),
    ]);
  });

  it("counts a replica of a model the catalogue does not know as unmanaged, holding what it reports", async () => {
    const body = heartbeat({
      node: { memoryGB: 64, cpuCount: 16 },
      replicas: [replicaReport({ model: "hand-started", memoryGB: 20, cpuCores: 2 })],
    });

    const reply = await beat(body);

    expect(reply.replicas).toEqual([]);
    const capacity = await (await api.client.capacity.$get()).json();
    expect(capacity.total).toEqual({ memoryGB: 64, cpuCores: 16, gpus: 0 });
    expect(capacity.free).toEqual({ memoryGB: 44, cpuCores: 14, gpus: 0 });
    expect(capacity.byClass).toContainEqual({
      class: "unmanaged",
      memoryGB: 20,
      cpuCores: 2,
      gpus: 0,
      replicas: 1,
    });
  });

  it("is a 400 naming the field of an absurd report", async () => {
    const body = heartbeat({ node: { memoryGB: 5_000_000_000 } });
    const replicas = [{ id: "r", model: "m", state: "exploded" }];

    const res = await api.client.agents.heartbeat.$post({
      json: { ...body, replicas } as unknown as ReturnType<typeof heartbeat>,
    });

    const error = await errorOf(res, 400);
    expect(Object.keys(error.fields ?? {}).sort()).toEqual(["node.memoryGB", "replicas.0.state"]);
    expect(await api.deps.store.nodes.list()).toEqual([]);
  });
  it("is a 400 naming the replica whose id is reported twice", async () => {
    const model = await create();
    const replica = replicaReport({ model: model.name });

    const res = await api.client.agents.heartbeat.$post({
      json: heartbeat({ replicas: [replica, replica] }),
    });

    expect((await errorOf(res, 400)).fields).toEqual({ "replicas.1.id": "reported twice" });
  });
});

describe("POST /fleet/nodes/:name/drain and /resume", () => {
  it("drains a node: audited, announced, and no place for new replicas there", async () => {
    const model = await create();
    const body = heartbeat();
    await beat(body);
    const latest = await api.deps.store.events.latestId();

    const res = await api.client.fleet.nodes[":name"].drain.$post({ param: { name: body.node.name } });

    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: body.node.name, state: "draining" });
    expect(await api.deps.store.audit.list()).toEqual([
      expect.objectContaining({
        action: "drain",
        target: body.node.name,
        before: "ready",
        after: "draining",
      }),
      expect.objectContaining({ action: "create", target: model.name }),
    ]);
    expect((await api.deps.store.events.since(latest)).map((e) => e.type)).toEqual(["node.changed"]);
    const room = await (
      await api.client.models[":name"].headroom.$get({ param: { name: model.name } })
    ).json();
    expect(room.nodes).toEqual([
      { node: body.node.name, fitFree: 0, fitPreempt: 0, reason: "not ready (draining)" },
    ]);
  });

  it("keeps a drained node draining through its heartbeats, until it is resumed", async () => {
    const body = heartbeat();
    await beat(body);
    await api.client.fleet.nodes[":name"].drain.$post({ param: { name: body.node.name } });

    await beat({ ...body, node: { ...body.node, freeMemoryGB: 12 } });
    const drained = await nodeNamed(body.node.name);
    const res = await api.client.fleet.nodes[":name"].resume.$post({ param: { name: body.node.name } });

    expect(drained?.state).toBe("draining");
    expect(res.status).toBe(200);
    expect((await res.json()).state).toBe("ready");
    expect((await nodeNamed(body.node.name))?.state).toBe("ready");
  });

  it("is a 404 for a node that never reported", async () => {
    const drain = await api.client.fleet.nodes[":name"].drain.$post({ param: { name: "no-such-node" } });
    const resume = await api.client.fleet.nodes[":name"].resume.$post({ param: { name: "no-such-node" } });

    expect((await errorOf(drain, 404)).code).toBe("not_found");
    expect((await errorOf(resume, 404)).code).toBe("not_found");
  });
});

describe("liveness", () => {
  it("marks a node down after three silent heartbeat intervals; its next beat brings it back", async () => {
    const body = heartbeat();
    await beat(body);
    const silence = 3 * api.config.heartbeatSeconds * 1000 + 1000;
    api.deps.now = () => new Date(Date.now() + silence);

    const marked = await markSilentNodesDown(api.deps);
    const down = await nodeNamed(body.node.name);
    await beat(body);

    expect(marked).toEqual([body.node.name]);
    expect(down?.state).toBe("down");
    expect((await nodeNamed(body.node.name))?.state).toBe("ready");
  });
});

describe("GET /fleet/nodes", () => {
  it("lists every node that reported, with usage by class", async () => {
    const a = heartbeat();
    const b = heartbeat({ node: { gpuTotal: 2, gpuMemoryGB: 80 } });
    await beat(a);
    await beat(b);

    const nodes = await (await api.client.fleet.nodes.$get()).json();

    expect(nodes.map((n) => n.name).sort()).toEqual([a.node.name, b.node.name].sort());
    expect(nodes.find((n) => n.name === b.node.name)?.usage.free).toEqual({
      memoryGB: 64,
      cpuCores: 16,
      gpus: 2,
    });
  });
});

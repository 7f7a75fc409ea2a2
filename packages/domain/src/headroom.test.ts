import { describe, expect, it } from "vitest";
import { makeClasses, makeModel, makeNode, makeQuota, makeReplica, replicaOf } from "../test/factories";
import { indexFleet, reindexNode } from "./fleetIndex";
import { headroom, headroomAll, headroomSummary } from "./headroom";
import type { Model, Node, Quota, Replica } from "./schemas";

function index(nodes: Node[], replicas: Replica[], models: Model[]) {
  return indexFleet({ nodes, replicas, models, classes: makeClasses() });
}

function roomFor(
  model: Model,
  nodes: Node[],
  replicas: Replica[] = [],
  others: Model[] = [],
  quotas: Quota[] = [],
) {
  return headroom(model, index(nodes, replicas, [model, ...others]), quotas);
}

function lineOf(room: { nodes: { node: string; reason: string | null }[] }, node: Node) {
  return room.nodes.find((n) => n.node === node.name);
}

describe("headroom on free capacity", () => {
  it("counts how many replicas fit on each node's free capacity, never spanning nodes", () => {
    const model = makeModel({ need: { minMemoryGB: 16, cpuCores: 4 } });
    const big = makeNode({ memoryGB: 64, cpuCount: 16 });
    const small = makeNode({ memoryGB: 24, cpuCount: 16 });
    const room = roomFor(model, [big, small]);
    expect(room).toMatchObject({
      model: model.name,
      need: { memoryGB: 16, cpuCores: 4, gpus: 0 },
      current: 0,
      free: 5,
      byPreemption: 0,
      quotaRemaining: null,
      total: 5,
      limitedBy: "capacity",
      victimsByClass: {},
    });
    expect(room.nodes).toEqual([
      { node: big.name, fitFree: 4, fitPreempt: 4, reason: null },
      { node: small.name, fitFree: 1, fitPreempt: 1, reason: null },
    ]);
  });

  it("takes what every replica on the node holds, whatever its class or state, failed excepted", () => {
    const model = makeModel({ need: { minMemoryGB: 8, cpuCores: 1 } });
    const node = makeNode({ memoryGB: 64, cpuCount: 64 });
    const other = makeModel({ class: "critical" });
    const replicas = [
      makeReplica({ model: other.name, node: node.name, state: "pending", memoryGB: 16 }),
      makeReplica({ model: other.name, node: node.name, state: "stopping", memoryGB: 16 }),
      makeReplica({ model: "not-in-catalogue", node: node.name, state: "ready", memoryGB: 16 }),
      makeReplica({ model: other.name, node: node.name, state: "failed", memoryGB: 16 }),
    ];
    expect(roomFor(model, [node], replicas, [other]).free).toBe(2);
  });

  it("does not limit by a dimension the model does not use", () => {
    const model = makeModel({ need: { minMemoryGB: 8, cpuCores: 0 } });
    const node = makeNode({ memoryGB: 32, cpuCount: 2 });
    expect(roomFor(model, [node]).free).toBe(4);
  });

  it("counts a node whose agent reports no engines (an older agent), not one reporting others", () => {
    const model = makeModel({ need: { minMemoryGB: 8, cpuCores: 2, engine: "llamacpp" } });
    const older = makeNode({ engines: [] });
    const gpuOnly = makeNode({ engines: ["vllm"] });
    const room = roomFor(model, [older, gpuOnly]);
    expect(lineOf(room, older)?.reason).toBeNull();
    expect(lineOf(room, gpuOnly)?.reason).toBe("has no llamacpp engine");
  });

  it("counts running replicas as ready ones on ready nodes, and says starting and elsewhere apart", () => {
    const model = makeModel();
    const ready = makeNode();
    const down = makeNode({ state: "down" });
    const draining = makeNode({ state: "draining" });
    const replicas = (["pending", "starting", "ready", "ready", "stopping", "failed"] as const).map((state) =>
      replicaOf(model, { node: ready.name, state }),
    );
    replicas.push(replicaOf(model, { node: null, state: "pending" }));
    replicas.push(replicaOf(model, { node: down.name, state: "ready" }));
    replicas.push(replicaOf(model, { node: draining.name, state: "starting" }));
    replicas.push(replicaOf(model, { node: draining.name, state: "stopping" }));
    const room = roomFor(model, [ready, down, draining], replicas);
    expect({ current: room.current, starting: room.starting, elsewhere: room.elsewhere }).toEqual({
      current: 2,
      starting: 1,
      elsewhere: 2,
    });
  });

  it("moves a node's replicas between the counts when a heartbeat changes its state", () => {
    const model = makeModel();
    const node = makeNode();
    const replicas = [replicaOf(model, { node: node.name, state: "ready" })];
    const before = index([node], replicas, [model]);
    const after = reindexNode(before, { ...node, state: "down" }, replicas);
    expect(headroom(model, before, []).current).toBe(1);
    const room = headroom(model, after, []);
    expect([room.current, room.elsewhere]).toEqual([0, 1]);
    const back = headroom(model, reindexNode(after, node, replicas), []);
    expect([back.current, back.elsewhere]).toEqual([1, 0]);
  });
});

describe("why a node holds none, in numbers", () => {
  const model = makeModel({ need: { minMemoryGB: 24, cpuCores: 8, nodeSelector: { gpu: "a100" } } });
  const labels = { gpu: "a100" };

  it.each([
    ["reports no memory", { memoryGB: 0 }],
    ["reports no cores", { cpuCount: 0 }],
    ["not ready (down)", { state: "down" as const }],
    ["not ready (draining)", { state: "draining" as const }],
    ["does not match nodeSelector gpu=a100", { labels: { gpu: "t4" } }],
    ["does not match nodeSelector gpu=a100", { labels: {} }],
    ["has no llamacpp engine", { engines: ["vllm"] }],
  ])("%s", (reason, facts) => {
    const node = makeNode({ labels, memoryGB: 64, cpuCount: 32, ...facts });
    expect(lineOf(roomFor(model, [node]), node)).toEqual({
      node: node.name,
      fitFree: 0,
      fitPreempt: 0,
      reason,
    });
  });

  it("names a selector mismatch before the node's state: it outlasts the outage", () => {
    const node = makeNode({ state: "down", labels: {} });
    expect(lineOf(roomFor(model, [node]), node)?.reason).toBe("does not match nodeSelector gpu=a100");
  });

  it("short of memory", () => {
    const node = makeNode({ labels, memoryGB: 64, cpuCount: 32 });
    const filler = makeModel({ class: "critical" });
    const replicas = [makeReplica({ model: filler.name, node: node.name, memoryGB: 48, cpuCores: 1 })];
    expect(lineOf(roomFor(model, [node], replicas, [filler]), node)?.reason).toBe(
      "needs 24 GB, has 16 GB free of 64",
    );
  });

  it("short of cores", () => {
    const node = makeNode({ labels, memoryGB: 64, cpuCount: 32 });
    const filler = makeModel({ class: "critical" });
    const replicas = [makeReplica({ model: filler.name, node: node.name, memoryGB: 1, cpuCores: 28 })];
    expect(lineOf(roomFor(model, [node], replicas, [filler]), node)?.reason).toBe(
      "needs 8 cores, has 4 free of 32",
    );
  });

  it("short of GPUs, or with none at all", () => {
    const gpuModel = makeModel({ need: { minMemoryGB: 8, cpuCores: 1, gpus: 2, engine: "vllm" } });
    const partial = makeNode({ gpuTotal: 8 });
    const none = makeNode({ gpuTotal: 0 });
    const filler = makeModel({ class: "critical" });
    const replicas = [
      makeReplica({ model: filler.name, node: partial.name, memoryGB: 1, cpuCores: 1, gpus: 7 }),
    ];
    const room = roomFor(gpuModel, [partial, none], replicas, [filler]);
    expect(lineOf(room, partial)?.reason).toBe("needs 2 GPUs, has 1 free of 8");
    expect(lineOf(room, none)?.reason).toBe("needs 2 GPUs, has none");
  });

  it("says when it fits only by preempting, and how many", () => {
    const node = makeNode({ labels, memoryGB: 64, cpuCount: 32 });
    const batch = makeModel({ class: "batch" });
    const replicas = [
      makeReplica({ model: batch.name, node: node.name, memoryGB: 24, cpuCores: 2 }),
      makeReplica({ model: batch.name, node: node.name, memoryGB: 24, cpuCores: 2 }),
    ];
    expect(lineOf(roomFor(model, [node], replicas, [batch]), node)).toEqual({
      node: node.name,
      fitFree: 0,
      fitPreempt: 2,
      reason: "needs 24 GB, has 16 GB free of 64; preempting lower classes makes room for 2",
    });
  });

  it("shows a fraction of a GB to one decimal, and an overcommitted node as 0 free", () => {
    const small = makeModel({ need: { minMemoryGB: 24, cpuCores: 1 } });
    const odd = makeNode({ memoryGB: 15.6 });
    const over = makeNode({ memoryGB: 16 });
    const filler = makeModel({ class: "critical" });
    const replicas = [makeReplica({ model: filler.name, node: over.name, memoryGB: 20, cpuCores: 1 })];
    const room = roomFor(small, [odd, over], replicas, [filler]);
    expect(lineOf(room, odd)?.reason).toBe("needs 24 GB, has 15.6 GB free of 15.6");
    expect(lineOf(room, over)?.reason).toBe("needs 24 GB, has 0 GB free of 16");
  });
});

describe("headroom by preemption", () => {
  it("counts only what the model's class strictly outranks", () => {
    const standard = makeModel({ class: "standard", need: { minMemoryGB: 16, cpuCores: 1 } });
    const sameClass = makeModel({ class: "standard" });
    const batch = makeModel({ class: "batch" });
    const critical = makeModel({ class: "critical" });
    const node = makeNode({ memoryGB: 64, cpuCount: 64 });
    const replicas = [
      makeReplica({ model: batch.name, node: node.name, memoryGB: 16, cpuCores: 1 }),
      makeReplica({ model: sameClass.name, node: node.name, memoryGB: 16, cpuCores: 1 }),
      makeReplica({ model: critical.name, node: node.name, memoryGB: 16, cpuCores: 1 }),
      replicaOf(standard, { node: node.name }),
    ];
    const room = roomFor(standard, [node], replicas, [sameClass, batch, critical]);
    expect(room).toMatchObject({ free: 0, byPreemption: 1, total: 1, victimsByClass: { batch: 1 } });
  });

  it("never counts unmanaged replicas", () => {
    const critical = makeModel({ class: "critical", need: { minMemoryGB: 16, cpuCores: 1 } });
    const node = makeNode({ memoryGB: 32, cpuCount: 64 });
    const replicas = [makeReplica({ model: "someone-elses", node: node.name, memoryGB: 32, cpuCores: 1 })];
    expect(roomFor(critical, [node], replicas)).toMatchObject({ free: 0, byPreemption: 0, total: 0 });
  });

  it("treats a class the configuration does not know as standard", () => {
    const critical = makeModel({ class: "critical", need: { minMemoryGB: 16, cpuCores: 1 } });
    const standard = makeModel({ class: "standard", need: { minMemoryGB: 16, cpuCores: 1 } });
    const unknown = makeModel({ class: "experimental" });
    const node = makeNode({ memoryGB: 16, cpuCount: 64 });
    const replicas = [makeReplica({ model: unknown.name, node: node.name, memoryGB: 16, cpuCores: 1 })];
    const fleet = index([node], replicas, [critical, standard, unknown]);
    expect(headroom(critical, fleet, [])).toMatchObject({
      byPreemption: 1,
      victimsByClass: { experimental: 1 },
    });
    expect(headroom(standard, fleet, []).byPreemption).toBe(0);
  });

  it("adds preemption places on top of free ones", () => {
    const critical = makeModel({ class: "critical", need: { minMemoryGB: 16, cpuCores: 1 } });
    const batch = makeModel({ class: "batch" });
    const node = makeNode({ memoryGB: 64, cpuCount: 64 });
    const replicas = [makeReplica({ model: batch.name, node: node.name, memoryGB: 40, cpuCores: 1 })];
    // free 24 → 1; free + batch 64 → 4
    expect(roomFor(critical, [node], replicas, [batch])).toMatchObject({
      free: 1,
      byPreemption: 3,
      total: 4,
    });
  });
});

describe("quota in headroom", () => {
  it("limits the total and says so", () => {
    const model = makeModel({ owner: "research", need: { minMemoryGB: 16, cpuCores: 4 } });
    const node = makeNode({ memoryGB: 256, cpuCount: 64 });
    const replicas = [
      replicaOf(model, { node: node.name }),
      replicaOf(model, { node: null, state: "pending" }),
    ];
    // The pending replica is on no node but counts for the quota: floor((64 − 32) / 16) = 2.
    const room = roomFor(model, [node], replicas, [], [makeQuota({ owner: "research", memoryGB: 64 })]);
    expect(room).toMatchObject({ free: 15, quotaRemaining: 2, total: 2, limitedBy: "quota" });
  });

  it("is capacity-limited when the quota allows at least what fits", () => {
    const model = makeModel({ owner: "research", need: { minMemoryGB: 16, cpuCores: 4 } });
    const room = roomFor(
      model,
      [makeNode({ memoryGB: 32 })],
      [],
      [],
      [makeQuota({ owner: "research", replicas: 2 })],
    );
    expect(room).toMatchObject({ free: 2, quotaRemaining: 2, total: 2, limitedBy: "capacity" });
  });
});

describe("a need of 0 in every dimension", () => {
  it("cannot be counted: free, byPreemption and total are null", () => {
    const model = makeModel({ need: { minMemoryGB: 0, cpuCores: 0, gpus: 0 } });
    const node = makeNode();
    const room = roomFor(model, [node]);
    expect(room).toMatchObject({
      free: null,
      byPreemption: null,
      total: null,
      limitedBy: "unknown-need",
      victimsByClass: {},
    });
    expect(lineOf(room, node)).toEqual({
      node: node.name,
      fitFree: 0,
      fitPreempt: 0,
      reason: "the model's need is unknown (set its memory and cores)",
    });
  });
});

describe("headroomAll", () => {
  it("gives what headroom gives for each model, detail fields included when serialised", () => {
    const nodes = [makeNode({ memoryGB: 64 }), makeNode({ memoryGB: 32, engines: ["vllm"] })];
    const a = makeModel({ class: "critical", need: { minMemoryGB: 8, cpuCores: 2 } });
    const b = makeModel({ class: "critical", need: { minMemoryGB: 8, cpuCores: 2 } });
    const c = makeModel({ class: "batch", need: { minMemoryGB: 8, cpuCores: 2 } });
    const replicas = [
      replicaOf(c, { node: nodes[0]?.name ?? null }),
      replicaOf(a, { node: nodes[0]?.name ?? null }),
    ];
    const fleet = index(nodes, replicas, [a, b, c]);
    const all = headroomAll([a, b, c], fleet, []);
    expect(all.map((h) => JSON.parse(JSON.stringify(h)))).toEqual(
      [a, b, c].map((m) => JSON.parse(JSON.stringify(headroom(m, fleet, [])))),
    );
    expect(JSON.parse(JSON.stringify(all[0]))).toHaveProperty("nodes.0.fitFree");
  });
});

describe("whyNot: the nodes that hold none, grouped by lasting cause", () => {
  const model = makeModel({ need: { minMemoryGB: 24, cpuCores: 8, nodeSelector: { gpu: "a100" } } });
  const labels = { gpu: "a100" };

  it("counts each cause once with one node's reason as the example, largest group first", () => {
    const filler = makeModel({ class: "critical" });
    const nodes = [
      makeNode({ name: "sel-1", labels: {} }),
      makeNode({ name: "sel-2", labels: { gpu: "t4" } }),
      makeNode({ name: "sel-3", labels: {}, state: "down" }),
      makeNode({ name: "eng-1", labels, engines: ["vllm"] }),
      makeNode({ name: "down-1", labels, state: "down" }),
      makeNode({ name: "mem-1", labels, memoryGB: 64, cpuCount: 32 }),
      makeNode({ name: "mem-2", labels, memoryGB: 64, cpuCount: 32 }),
      makeNode({ name: "cpu-1", labels, memoryGB: 64, cpuCount: 32 }),
      makeNode({ name: "fits-1", labels, memoryGB: 64, cpuCount: 32 }),
    ];
    const replicas = [
      makeReplica({ model: filler.name, node: "mem-1", memoryGB: 48, cpuCores: 1 }),
      makeReplica({ model: filler.name, node: "mem-2", memoryGB: 50, cpuCores: 1 }),
      makeReplica({ model: filler.name, node: "cpu-1", memoryGB: 1, cpuCores: 28 }),
    ];
    const room = roomFor(model, nodes, replicas, [filler]);
    expect(room.whyNot).toEqual([
      { cause: "selector", nodes: 3, example: "sel-1: does not match nodeSelector gpu=a100" },
      { cause: "short of memory", nodes: 2, example: "mem-1: needs 24 GB, has 16 GB free of 64" },
      { cause: "engine", nodes: 1, example: "eng-1: has no llamacpp engine" },
      { cause: "not ready", nodes: 1, example: "down-1: not ready (down)" },
      { cause: "short of cores", nodes: 1, example: "cpu-1: needs 8 cores, has 4 free of 32" },
    ]);
    // Every node that holds none is in exactly one group: the per-node list agrees.
    const none = room.nodes.filter((n) => n.reason !== null).length;
    expect(room.whyNot.reduce((sum, w) => sum + w.nodes, 0)).toBe(none);
  });

  it("is the same whether the model is counted alone or with others of its shape", () => {
    const twin = { ...model, name: "twin" };
    const nodes = [makeNode({ labels: {} }), makeNode({ labels, memoryGB: 8 })];
    const fleet = index(nodes, [], [model, twin]);
    const [a, b] = headroomAll([model, twin], fleet, []);
    expect(a?.whyNot).toEqual(headroom(model, fleet, []).whyNot);
    expect(b?.whyNot).toEqual(a?.whyNot);
    expect(a?.whyNot.map((w) => w.cause)).toEqual(["selector", "short of memory"]);
  });

  it("lists only placement causes when the need is unknown (nothing can be short)", () => {
    const unknown = makeModel({ need: { minMemoryGB: 0, cpuCores: 0, gpus: 0 } });
    const room = roomFor(unknown, [makeNode(), makeNode({ state: "down" })]);
    expect(room.whyNot).toEqual([expect.objectContaining({ cause: "not ready", nodes: 1 })]);
  });

  it("a list's summary carries every field but the per-node lines, and never computes them", () => {
    const nodes = [makeNode({ labels }), makeNode({ labels: {} })];
    const room = roomFor(model, nodes);
    const summary = headroomSummary(room);
    expect(summary).not.toHaveProperty("nodes");
    expect(summary.whyNot).toEqual(room.whyNot);
    expect(JSON.stringify(summary)).not.toContain("fitFree");
  });
});

import { describe, expect, it } from "vitest";
import { makeClasses, makeModel, makeNode, makeReplica, replicaOf } from "../test/factories";
import { freeOn, indexFleet, quotaUsage, reindexNode, replicaCounts } from "./fleetIndex";
import { headroom, headroomAll } from "./headroom";
import type { Model, Node, Replica } from "./schemas";

function index(nodes: Node[], replicas: Replica[], models: Model[]) {
  return indexFleet({ nodes, replicas, models, classes: makeClasses() });
}

describe("quotaUsage", () => {
  it("counts every replica of the owner's models that is not failed, pending included", () => {
    const mine = makeModel({ owner: "research" });
    const theirs = makeModel({ owner: "ops" });
    const node = makeNode();
    const replicas = [
      makeReplica({ model: mine.name, node: node.name, memoryGB: 8, cpuCores: 2, gpus: 1 }),
      makeReplica({ model: mine.name, node: null, state: "pending", memoryGB: 8, cpuCores: 2 }),
      makeReplica({ model: mine.name, node: node.name, state: "failed", memoryGB: 8, cpuCores: 2 }),
      makeReplica({ model: theirs.name, node: node.name, memoryGB: 8, cpuCores: 2 }),
      makeReplica({ model: "unmanaged", node: node.name, memoryGB: 8, cpuCores: 2 }),
    ];
    const fleet = index([node], replicas, [mine, theirs]);
    expect(quotaUsage("research", fleet)).toEqual({ memoryGB: 16, cpuCores: 4, gpus: 1, replicas: 2 });
    expect(quotaUsage("nobody", fleet)).toEqual({ memoryGB: 0, cpuCores: 0, gpus: 0, replicas: 0 });
  });
});

describe("freeOn", () => {
  it("is the node's capacity less what its replicas hold, failed ones holding nothing", () => {
    const node = makeNode({ memoryGB: 64, cpuCount: 16, gpuTotal: 2 });
    const replicas = [
      makeReplica({ node: node.name, memoryGB: 20.5, cpuCores: 4, gpus: 1 }),
      makeReplica({ node: node.name, state: "stopping", memoryGB: 8, cpuCores: 2 }),
      makeReplica({ node: node.name, state: "failed", memoryGB: 8, cpuCores: 2 }),
    ];
    expect(freeOn(node, replicas)).toEqual({ memoryGB: 35.5, cpuCores: 10, gpus: 1 });
  });

  it("goes below zero on an overcommitted node, as the index keeps it", () => {
    const node = makeNode({ memoryGB: 16, cpuCount: 4 });
    const replicas = [makeReplica({ node: node.name, memoryGB: 24, cpuCores: 2 })];
    expect(freeOn(node, replicas)).toEqual({ memoryGB: -8, cpuCores: 2, gpus: 0 });
    expect([...index([node], replicas, []).free]).toEqual([-8, 2, 0]);
  });
});

describe("reindexNode", () => {
  it("after a heartbeat, equals indexing the fleet afresh, and leaves the old index as it was", () => {
    const model = makeModel({ owner: "research", class: "critical", need: { minMemoryGB: 8, cpuCores: 2 } });
    const batch = makeModel({ owner: "research", class: "batch" });
    const a = makeNode({ memoryGB: 64 });
    const b = makeNode({ memoryGB: 32 });
    const pending = replicaOf(model, { node: null, state: "pending" });
    const before = [replicaOf(batch, { node: a.name }), pending, replicaOf(model, { node: b.name })];
    const old = index([a, b], before, [model, batch]);
    const oldView = JSON.stringify(headroomAll([model, batch], old, []));

    // Node a now reports more memory, the pending replica starting there, and the batch one failed.
    const a2 = { ...a, memoryGB: 96 };
    const onA = [
      { ...(before[0] as Replica), state: "failed" as const },
      { ...pending, node: a.name, state: "starting" as const },
    ];
    const next = reindexNode(old, a2, onA);
    const fresh = index([a2, b], [...onA, before[2] as Replica], [model, batch]);
    expect(JSON.stringify(headroomAll([model, batch], next, []))).toBe(
      JSON.stringify(headroomAll([model, batch], fresh, [])),
    );
    expect(quotaUsage("research", next)).toEqual(quotaUsage("research", fresh));
    expect(replicaCounts(next, model.name)).toEqual(replicaCounts(fresh, model.name));
    expect(JSON.stringify(headroomAll([model, batch], old, []))).toBe(oldView);
  });

  it("adds a node it has not seen", () => {
    const model = makeModel({ need: { minMemoryGB: 8, cpuCores: 2 } });
    const old = index([makeNode({ memoryGB: 16 })], [], [model]);
    const added = makeNode({ memoryGB: 32 });
    const next = reindexNode(old, added, []);
    expect(headroom(model, next, []).free).toBe(6);
    expect(headroom(model, old, []).free).toBe(2);
  });
});

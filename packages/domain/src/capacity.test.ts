import { describe, expect, it } from "vitest";
import { makeClasses, makeModel, makeNode, makeReplica } from "../test/factories";
import { capacityByClass, nodeUsage, nodeView, usageOn } from "./capacity";
import { indexFleet, reindexNode } from "./fleetIndex";
import type { Model, Node, Replica } from "./schemas";

function fleet(nodes: Node[], replicas: Replica[], models: Model[]) {
  return indexFleet({ nodes, replicas, models, classes: makeClasses() });
}

describe("capacityByClass", () => {
  it("totals ready nodes, what each class holds there, and what is left free; down nodes' replicas apart", () => {
    const critical = makeModel({ class: "critical" });
    const batch = makeModel({ class: "batch" });
    const a = makeNode({ memoryGB: 64, cpuCount: 16, gpuTotal: 2 });
    const b = makeNode({ memoryGB: 31.9, cpuCount: 8 });
    const down = makeNode({ memoryGB: 128, cpuCount: 32, state: "down" });
    const replicas = [
      makeReplica({ model: critical.name, node: a.name, memoryGB: 16, cpuCores: 4, gpus: 1 }),
      makeReplica({ model: batch.name, node: b.name, memoryGB: 8, cpuCores: 2 }),
      makeReplica({ model: batch.name, node: b.name, memoryGB: 8, cpuCores: 2, state: "failed" }),
      makeReplica({ model: "someone-elses", node: a.name, memoryGB: 4, cpuCores: 1 }),
      // Still holding on a down node until it stops.
      makeReplica({ model: batch.name, node: down.name, memoryGB: 8, cpuCores: 2 }),
      makeReplica({ model: critical.name, node: null, state: "pending", memoryGB: 16, cpuCores: 4 }),
    ];
    expect(capacityByClass(fleet([a, b, down], replicas, [critical, batch]))).toEqual({
      total: { memoryGB: 95, cpuCores: 24, gpus: 2 },
      free: { memoryGB: 67, cpuCores: 17, gpus: 1 },
      byClass: [
        { class: "critical", replicas: 1, memoryGB: 16, cpuCores: 4, gpus: 1 },
        { class: "standard", replicas: 0, memoryGB: 0, cpuCores: 0, gpus: 0 },
        { class: "batch", replicas: 1, memoryGB: 8, cpuCores: 2, gpus: 0 },
        { class: "unmanaged", replicas: 1, memoryGB: 4, cpuCores: 1, gpus: 0 },
      ],
      elsewhere: [
        { class: "critical", replicas: 0, memoryGB: 0, cpuCores: 0, gpus: 0 },
        { class: "standard", replicas: 0, memoryGB: 0, cpuCores: 0, gpus: 0 },
        { class: "batch", replicas: 1, memoryGB: 8, cpuCores: 2, gpus: 0 },
        { class: "unmanaged", replicas: 0, memoryGB: 0, cpuCores: 0, gpus: 0 },
      ],
    });
  });

  it("gives a class the configuration does not know its own row", () => {
    const odd = makeModel({ class: "experimental" });
    const node = makeNode();
    const usage = capacityByClass(fleet([node], [makeReplica({ model: odd.name, node: node.name })], [odd]));
    expect(usage.byClass.map((row) => row.class)).toEqual([
      "critical",
      "standard",
      "batch",
      "experimental",
      "unmanaged",
    ]);
  });
});

describe("nodeUsage", () => {
  it("is one node's free resources and its holdings by class", () => {
    const standard = makeModel({ class: "standard" });
    const node = makeNode({ memoryGB: 32, cpuCount: 8 });
    const other = makeNode();
    const replicas = [
      makeReplica({ model: standard.name, node: node.name, memoryGB: 12, cpuCores: 4 }),
      makeReplica({ model: standard.name, node: other.name, memoryGB: 12, cpuCores: 4 }),
      makeReplica({ model: "ghost", node: node.name, memoryGB: 24, cpuCores: 2 }),
    ];
    expect(nodeUsage(fleet([node, other], replicas, [standard]), node.name)).toEqual({
      // 32 − 36 is overcommitted: nothing free, not a negative amount.
      free: { memoryGB: 0, cpuCores: 2, gpus: 0 },
      byClass: [
        { class: "critical", replicas: 0, memoryGB: 0, cpuCores: 0, gpus: 0 },
        { class: "standard", replicas: 1, memoryGB: 12, cpuCores: 4, gpus: 0 },
        { class: "batch", replicas: 0, memoryGB: 0, cpuCores: 0, gpus: 0 },
        { class: "unmanaged", replicas: 1, memoryGB: 24, cpuCores: 2, gpus: 0 },
      ],
    });
  });

  it("is null for a node the index does not know", () => {
    expect(nodeUsage(fleet([], [], []), "nowhere")).toBeNull();
  });
});

describe("usageOn", () => {
  it("is the bar a heartbeat's replicas give a node, the same the index gives once they are stored", () => {
    const batch = makeModel({ class: "batch" });
    const node = makeNode({ memoryGB: 48, cpuCount: 12 });
    const before = fleet([node], [makeReplica({ model: batch.name, node: node.name })], [batch]);
    const reported = [
      makeReplica({ model: batch.name, node: node.name, memoryGB: 10.5, cpuCores: 3 }),
      makeReplica({ model: "ghost", node: node.name, memoryGB: 6, cpuCores: 1 }),
    ];
    const usage = usageOn(before, node, reported);
    expect(usage).toEqual({
      free: { memoryGB: 31, cpuCores: 8, gpus: 0 },
      byClass: [
        { class: "critical", replicas: 0, memoryGB: 0, cpuCores: 0, gpus: 0 },
        { class: "standard", replicas: 0, memoryGB: 0, cpuCores: 0, gpus: 0 },
        { class: "batch", replicas: 1, memoryGB: 10.5, cpuCores: 3, gpus: 0 },
        { class: "unmanaged", replicas: 1, memoryGB: 6, cpuCores: 1, gpus: 0 },
      ],
    });
    expect(nodeUsage(reindexNode(before, node, reported), node.name)).toEqual(usage);
  });
});

describe("nodeView", () => {
  it("is the node with its bar", () => {
    const node = makeNode({ memoryGB: 32 });
    const held = makeReplica({ model: "ghost", node: node.name, memoryGB: 8 });
    expect(nodeView(fleet([node], [held], []), node)).toMatchObject({
      ...node,
      usage: {
        free: { memoryGB: 24 },
        byClass: expect.arrayContaining([expect.objectContaining({ replicas: 1 })]),
      },
    });
  });

  it("shows all the capacity of a node the index does not hold yet free", () => {
    const node = makeNode({ memoryGB: 32, cpuCount: 8, gpuTotal: 1 });
    expect(nodeView(fleet([], [], []), node)).toEqual({
      ...node,
      usage: { free: { memoryGB: 32, cpuCores: 8, gpus: 1 }, byClass: [] },
    });
  });
});

import { describe, expect, it } from "vitest";
import { capacityByClass, nodeUsage } from "./capacity";
import { indexFleet } from "./fleetIndex";
import type { Model, Node, Replica } from "./schemas";
import { makeClasses, makeModel, makeNode, makeReplica } from "./testing/factories";

function fleet(nodes: Node[], replicas: Replica[], models: Model[]) {
  return indexFleet({ nodes, replicas, models, classes: makeClasses() });
}

describe("capacityByClass", () => {
  it("totals ready nodes, what each class holds, and what is left free", () => {
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
        { class: "batch", replicas: 2, memoryGB: 16, cpuCores: 4, gpus: 0 },
        { class: "unmanaged", replicas: 1, memoryGB: 4, cpuCores: 1, gpus: 0 },
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

import { describe, expect, it } from "vitest";
import { makeClasses, makeModel, makeNode, makeQuota, makeReplica } from "../test/factories";
import { indexFleet } from "./fleetIndex";
import { headroom, victimsFor } from "./headroom";
import type { Model, Node, Replica } from "./schemas";

function index(nodes: Node[], replicas: Replica[], models: Model[]) {
  return indexFleet({ nodes, replicas, models, classes: makeClasses() });
}

describe("victimsByClass", () => {
  const critical = makeModel({ class: "critical", need: { minMemoryGB: 16, cpuCores: 1 } });
  const batch = makeModel({ class: "batch" });
  const standard = makeModel({ class: "standard" });

  it("evicts the lowest class first and reprieves what turns out not to be needed", () => {
    const node = makeNode({ memoryGB: 36, cpuCount: 64 });
    // free 4; one place needs 12 more. Least important first: the newest batch (2 GB), then the
    // older batch (16 GB) covers it, and the 2 GB one is reprieved.
    const older = makeReplica({ model: batch.name, node: node.name, memoryGB: 16, cpuCores: 1 });
    const newer = makeReplica({ model: batch.name, node: node.name, memoryGB: 2, cpuCores: 1 });
    const std = makeReplica({ model: standard.name, node: node.name, memoryGB: 14, cpuCores: 1 });
    const fleet = index([node], [older, newer, std], [critical, batch, standard]);
    expect(victimsFor(critical, fleet, 1).map((v) => v.replica.id)).toEqual([older.id]);
    // Two places need 28 GB more: all three (32) cover it, and then the 2 GB one is spared again.
    expect(headroom(critical, fleet, [])).toMatchObject({
      byPreemption: 2,
      victimsByClass: { batch: 1, standard: 1 },
    });
  });

  it.each(["constructor", "toString", "__proto__"])("counts a class called %s like any other", (name) => {
    const classes = [...makeClasses(), { name, rank: 50, description: "" }];
    const low = makeModel({ class: name });
    const node = makeNode({ memoryGB: 16, cpuCount: 64 });
    const held = makeReplica({ model: low.name, node: node.name, memoryGB: 16, cpuCores: 1 });
    const fleet = indexFleet({ nodes: [node], replicas: [held], models: [critical, low], classes });

    const room = headroom(critical, fleet, []);

    expect(Object.entries(room.victimsByClass)).toEqual([[name, 1]]);
  });

  it("among equals, evicts the newest", () => {
    const node = makeNode({ memoryGB: 32, cpuCount: 64 });
    const first = makeReplica({ model: batch.name, node: node.name, memoryGB: 16, cpuCores: 1 });
    const second = makeReplica({ model: batch.name, node: node.name, memoryGB: 16, cpuCores: 1 });
    const fleet = index([node], [first, second], [critical, batch]);
    expect(victimsFor(critical, fleet, 1).map((v) => v.replica.id)).toEqual([second.id]);
  });

  it("within a quota, takes free places first, then the nodes with the cheapest eviction", () => {
    const freeNode = makeNode({ memoryGB: 16, cpuCount: 64 });
    const standardNode = makeNode({ memoryGB: 16, cpuCount: 64 });
    const twoBatch = makeNode({ memoryGB: 16, cpuCount: 64 });
    const oneBatch = makeNode({ memoryGB: 16, cpuCount: 64 });
    const owned = { ...critical, owner: "research" };
    const replicas = [
      makeReplica({ model: standard.name, node: standardNode.name, memoryGB: 16, cpuCores: 1 }),
      makeReplica({ model: batch.name, node: twoBatch.name, memoryGB: 8, cpuCores: 1 }),
      makeReplica({ model: batch.name, node: twoBatch.name, memoryGB: 8, cpuCores: 1 }),
      makeReplica({ model: batch.name, node: oneBatch.name, memoryGB: 16, cpuCores: 1 }),
    ];
    const fleet = index([freeNode, standardNode, twoBatch, oneBatch], replicas, [owned, batch, standard]);
    const quota = makeQuota({ owner: "research", replicas: 2 });
    expect(headroom(owned, fleet, [quota])).toMatchObject({
      free: 1,
      byPreemption: 3,
      quotaRemaining: 2,
      total: 2,
      limitedBy: "quota",
      victimsByClass: { batch: 1 },
    });
    expect(victimsFor(owned, fleet, 1).map((v) => v.replica.node)).toEqual([oneBatch.name]);
    expect(victimsFor(owned, fleet, 2).map((v) => v.replica.node)).toEqual([
      oneBatch.name,
      twoBatch.name,
      twoBatch.name,
    ]);
  });

  it("is empty when free places reach the total", () => {
    const node = makeNode({ memoryGB: 64, cpuCount: 64 });
    const busy = makeNode({ memoryGB: 16, cpuCount: 64 });
    const owned = { ...critical, owner: "research" };
    const replicas = [makeReplica({ model: batch.name, node: busy.name, memoryGB: 16, cpuCores: 1 })];
    const fleet = index([node, busy], replicas, [owned, batch]);
    expect(headroom(owned, fleet, [makeQuota({ owner: "research", replicas: 3 })])).toMatchObject({
      free: 4,
      total: 3,
      victimsByClass: {},
    });
  });
});

import { compareText, type Model, type Node, type Replica } from "@llmgw/domain";
import { makeClasses, makeModel, makeNode, replicaOf } from "@llmgw/domain/testing";
import { describe, expect, it } from "vitest";
import { withModel, withNode, withNodes, withoutModel, withReplicas } from "./patches";
import { Snapshot } from "./snapshot";

// Each patch gives the picture a fresh read of the same tables gives (Snapshot.of): the groupings,
// the orders and the index a heartbeat, a scheduler run or an edit leaves are those of the store.

const byName = <T extends { name: string }>(a: T, b: T) => compareText(a.name, b.name);
const byId = (a: Replica, b: Replica) => compareText(a.id, b.id);

function fleet() {
  const models = [makeModel({ name: "a-model" }), makeModel({ name: "b-model" })];
  const nodes = [makeNode({ name: "n1" }), makeNode({ name: "n2" })];
  const [a, b] = models as [Model, Model];
  const replicas = [
    replicaOf(a, { id: "r1", node: "n1" }),
    replicaOf(b, { id: "r2", node: "n1" }),
    replicaOf(a, { id: "r3", node: "n2" }),
    replicaOf(b, { id: "r4", node: null, state: "pending" }),
  ];
  return { models, nodes, replicas, classes: makeClasses(), quotas: [] };
}

/** What a snapshot says, as plain data: what reads and headroom are computed from. */
function picture(snap: Snapshot) {
  return {
    models: snap.models,
    nodes: snap.nodes,
    replicas: snap.replicas,
    replicasByNode: Object.fromEntries([...snap.replicasByNode].sort()),
    replicasByModel: Object.fromEntries([...snap.replicasByModel].sort()),
    unplaced: snap.unplaced,
    // Per node in any order: a patched index lists a new node last, a fresh one in name order.
    headroom: Object.fromEntries(
      [...snap.headroom].map(([model, room]) => [
        model,
        { ...room, nodes: [...room.nodes].sort((x, y) => (x.node < y.node ? -1 : 1)) },
      ]),
    ),
  };
}

describe("withModel", () => {
  it("never puts an older version of a model over a newer one (edits' continuations can cross)", () => {
    const v2 = makeModel({ version: 2, description: "newer" });
    const snap = Snapshot.of({ models: [v2], nodes: [], replicas: [], classes: [], quotas: [] });
    expect(withModel(snap, { ...v2, version: 1, description: "older" })).toBe(snap);
    expect(
      withModel(snap, { ...v2, version: 3, description: "newest" }).modelsByName.get(v2.name),
    ).toMatchObject({ description: "newest" });
  });

  it("adds a model in name order, and withoutModel takes it away, its replicas staying", () => {
    const tables = fleet();
    const snap = Snapshot.of(tables);
    const added = makeModel({ name: "ab-model" });

    const grown = withModel(snap, added);
    expect(picture(grown)).toEqual(
      picture(Snapshot.of({ ...tables, models: [...tables.models, added].sort(byName) })),
    );
    const shrunk = withoutModel(grown, "a-model");
    expect(picture(shrunk)).toEqual(
      picture(Snapshot.of({ ...tables, models: [added, ...tables.models.slice(1)].sort(byName) })),
    );
    expect(shrunk.replicasByModel.get("a-model")?.map((r) => r.id)).toEqual(["r1", "r3"]);
  });
});

describe("withReplicas", () => {
  it("applies a scheduler run's writes, the last write of an id winning", () => {
    const tables = fleet();
    const [a] = tables.models as [Model];
    const placed = { ...(tables.replicas[3] as Replica), node: "n2", state: "starting" as const };
    const added = replicaOf(a, { id: "r0", node: "n2" });
    const writes = [
      { replica: placed, removed: false },
      { replica: tables.replicas[0] as Replica, removed: true },
      { replica: added, removed: false },
    ];

    const patched = withReplicas(Snapshot.of(tables), writes);
    const replicas = [added, placed, ...tables.replicas.slice(1, 3)].sort(byId);
    expect(picture(patched)).toEqual(picture(Snapshot.of({ ...tables, replicas })));
  });
});

describe("withNodes", () => {
  it("replaces nodes' rows and replicas, adding a new node in name order, as a fresh read would", () => {
    const tables = fleet();
    const [a, b] = tables.models as [Model, Model];
    const n1: Node = { ...(tables.nodes[0] as Node), freeMemoryGB: 3 };
    const n0 = makeNode({ name: "n0" });
    const n1Now = [
      replicaOf(b, { id: "r2", node: "n1", state: "starting" }),
      replicaOf(a, { id: "r5", node: "n1" }),
    ];
    const n0Now = [replicaOf(a, { id: "r6", node: "n0" })];

    const patched = withNodes(Snapshot.of(tables), [
      { node: n1, replicas: n1Now },
      { node: n0, replicas: n0Now },
    ]);
    const replicas = [...n1Now, ...n0Now, tables.replicas[2] as Replica, tables.replicas[3] as Replica].sort(
      byId,
    );
    expect(patched).not.toBeNull();
    expect(picture(patched as Snapshot)).toEqual(
      picture(Snapshot.of({ ...tables, nodes: [n0, n1, tables.nodes[1] as Node], replicas })),
    );
  });

  it("gives null when a node lists a replica another node holds: only a fresh read can say where it is", () => {
    const tables = fleet();
    const moved = { ...(tables.replicas[2] as Replica), node: "n1" };
    expect(withNode(Snapshot.of(tables), tables.nodes[0] as Node, [moved])).toBeNull();
  });
});

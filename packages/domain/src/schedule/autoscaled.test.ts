import { describe, expect, it } from "vitest";
import { makeClasses, makeModel, makeNode, makeQuota, replicaOf } from "../../test/factories";
import { DRAIN_SETTLE_MS } from "../autoscale";
import type { Model, Node, Quota, Replica } from "../schemas";
import { applySchedule, changesNothing } from "./apply";
import { type ScheduleInput, schedule } from "./schedule";

// SPEC §9.3–9.4 in the planner: an autoscaled model's wanted replicas are placed like any others
// (free capacity, then preempting strictly lower classes, within the owner's quota), and the ones
// it no longer wants drain before they stop.

const NOW = Date.UTC(2026, 0, 1, 14, 0);

function plan(fleet: {
  models: Model[];
  nodes: Node[];
  replicas?: Replica[];
  quotas?: Quota[];
  autoscaled?: Map<string, number>;
  inFlight?: Map<string, number>;
  now?: number;
}) {
  let n = 0;
  const input: ScheduleInput = {
    models: fleet.models,
    nodes: fleet.nodes,
    replicas: fleet.replicas ?? [],
    classes: makeClasses(),
    quotas: fleet.quotas ?? [],
    wakes: new Map(),
    now: fleet.now ?? NOW,
    newId: (model) => `${model}-new${++n}`,
    autoscaled: fleet.autoscaled ?? new Map(),
    drain: { inFlight: fleet.inFlight ?? new Map(), boundMs: 60_000 },
  };
  const result = schedule(input);
  return { ...result, next: applySchedule(input.replicas, result) };
}

/** The agents start what was placed and stop what is stopping. */
const served = (replicas: readonly Replica[]): Replica[] =>
  replicas
    .filter((r) => r.state !== "stopping")
    .map((r) =>
      r.state === "starting" ? { ...r, state: "ready" as const, endpoint: `http://${r.id}:8000` } : r,
    );

const autoscaled = (overrides: Parameters<typeof makeModel>[0] = {}) =>
  makeModel({
    scaling: { min: 1, max: 4, idleTimeoutSeconds: 900 },
    need: { minMemoryGB: 8, cpuCores: 2 },
    ...overrides,
  });

describe("an autoscaled model's wanted replicas", () => {
  it("runs what traffic wants, within its floor and max, and its floor without a word from the autoscaler", () => {
    const model = autoscaled();
    const nodes = [makeNode({ memoryGB: 64, cpuCount: 32 })];
    expect(plan({ models: [model], nodes }).place).toHaveLength(1);
    expect(plan({ models: [model], nodes, autoscaled: new Map([[model.name, 3]]) }).place).toHaveLength(3);
    expect(plan({ models: [model], nodes, autoscaled: new Map([[model.name, 9]]) }).place).toHaveLength(4);
  });

  it("preempts a lower class for a burst and places the preempted again once the burst has drained", () => {
    const node = makeNode({ memoryGB: 32, cpuCount: 16 });
    const web = autoscaled({ class: "critical" });
    const batch = makeModel({
      class: "batch",
      scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 },
      need: { minMemoryGB: 8, cpuCores: 2 },
    });
    let replicas = served([
      replicaOf(web, { node: node.name, state: "ready" }),
      replicaOf(batch, { node: node.name, state: "ready" }),
      replicaOf(batch, { node: node.name, state: "ready" }),
    ]);

    // The burst: 3 wanted, room for 1 more: one batch replica is preempted.
    const burst = plan({
      models: [web, batch],
      nodes: [node],
      replicas,
      autoscaled: new Map([[web.name, 3]]),
    });
    expect(burst.evict.map((e) => e.replica.model)).toEqual([batch.name]);
    replicas = served(
      plan({
        models: [web, batch],
        nodes: [node],
        replicas: served(burst.next),
        autoscaled: new Map([[web.name, 3]]),
      }).next,
    );
    expect(replicas.filter((r) => r.model === web.name && r.state === "ready")).toHaveLength(3);
    expect(replicas.filter((r) => r.model === batch.name).map((r) => r.state)).toEqual(["ready", "pending"]);

    // Over: the newest web replica drains, then stops once drained; batch gets its place back.
    const over = plan({
      models: [web, batch],
      nodes: [node],
      replicas,
      autoscaled: new Map([[web.name, 1]]),
    });
    expect(over.drain.map((r) => r.model)).toEqual([web.name, web.name]);
    expect(over.stop).toEqual([]);
    const later = NOW + DRAIN_SETTLE_MS;
    const drained = plan({
      models: [web, batch],
      nodes: [node],
      replicas: over.next,
      autoscaled: new Map([[web.name, 1]]),
      now: later,
    });
    expect(drained.stop.map((r) => r.model)).toEqual([web.name, web.name]);
    const back = plan({ models: [web, batch], nodes: [node], replicas: served(drained.next), now: later });
    expect(back.place.map((r) => r.model)).toEqual([batch.name]);
  });

  it("stops at the owner's quota and holds the rest back with the reason, in numbers", () => {
    const model = autoscaled({ owner: "research" });
    const result = plan({
      models: [model],
      nodes: [makeNode({ memoryGB: 128, cpuCount: 64 })],
      quotas: [makeQuota({ owner: "research", replicas: 2 })],
      autoscaled: new Map([[model.name, 4]]),
    });
    expect(result.place).toHaveLength(2);
    expect(result.heldBack).toEqual([
      {
        model: model.name,
        replicas: 2,
        reason: "owner research would run 3 replicas, over its limit of 2 (uses 2, asks 1)",
      },
    ]);
  });
});

describe("draining (SPEC §9.3)", () => {
  const node = makeNode({ memoryGB: 64, cpuCount: 32 });
  const model = autoscaled();
  const three = () => served([1, 2, 3].map(() => replicaOf(model, { node: node.name, state: "starting" })));

  it("keeps a replica it no longer wants ready but draining, and stops it once no process has a request on it", () => {
    const replicas = three();
    const newest = replicas[2];
    const shrink = plan({ models: [model], nodes: [node], replicas, autoscaled: new Map([[model.name, 2]]) });
    expect(shrink.drain).toEqual([
      expect.objectContaining({
        id: newest?.id,
        state: "ready",
        drainingSince: new Date(NOW).toISOString(),
        reason: "draining: more replicas than wanted (2)",
      }),
    ]);
    expect(
      changesNothing(
        plan({
          models: [model],
          nodes: [node],
          replicas: shrink.next,
          autoscaled: new Map([[model.name, 2]]),
          now: NOW + 1000,
        }),
      ),
    ).toBe(true);

    const busy = new Map([[newest?.id ?? "", 2]]);
    const still = plan({
      models: [model],
      nodes: [node],
      replicas: shrink.next,
      autoscaled: new Map([[model.name, 2]]),
      inFlight: busy,
      now: NOW + 30_000,
    });
    expect(changesNothing(still)).toBe(true);
    const idle = plan({
      models: [model],
      nodes: [node],
      replicas: shrink.next,
      autoscaled: new Map([[model.name, 2]]),
      now: NOW + 30_000,
    });
    expect(idle.stop).toEqual([
      expect.objectContaining({
        id: newest?.id,
        state: "stopping",
        reason: "more replicas than wanted (2); drained",
      }),
    ]);
    // An answer that never ends does not hold it for ever.
    const bound = plan({
      models: [model],
      nodes: [node],
      replicas: shrink.next,
      autoscaled: new Map([[model.name, 2]]),
      inFlight: busy,
      now: NOW + 60_000,
    });
    expect(bound.stop.map((r) => r.id)).toEqual([newest?.id]);
  });

  it("takes a draining replica back when traffic wants it again, before placing a new one", () => {
    const shrink = plan({
      models: [model],
      nodes: [node],
      replicas: three(),
      autoscaled: new Map([[model.name, 1]]),
    });
    expect(shrink.drain).toHaveLength(2);
    const again = plan({
      models: [model],
      nodes: [node],
      replicas: shrink.next,
      autoscaled: new Map([[model.name, 3]]),
      now: NOW + 1000,
    });
    expect(again.place).toEqual([]);
    expect(again.drain.map((r) => [r.state, r.drainingSince, r.reason])).toEqual([
      ["ready", undefined, null],
      ["ready", undefined, null],
    ]);
  });

  it("stops at once what no request can be on: a starting replica, or one without an endpoint", () => {
    const replicas = [
      replicaOf(model, { node: node.name, state: "ready", endpoint: "http://a:1" }),
      replicaOf(model, { node: node.name, state: "starting" }),
    ];
    const result = plan({ models: [model], nodes: [node], replicas, autoscaled: new Map([[model.name, 1]]) });
    expect(result.stop.map((r) => r.id)).toEqual([replicas[1]?.id]);
    expect(result.drain).toEqual([]);
  });
});

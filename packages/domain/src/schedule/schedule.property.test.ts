import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeModel, makeNode, makeProfile, makeReplica } from "../../test/factories";
import { DEFAULT_CLASSES } from "../classes";
import { indexFleet } from "../fleetIndex";
import { headroom } from "../headroom";
import type { Class, Model, Node, Quota, Replica } from "../schemas";
import { applySchedule, changesNothing, scheduleWrites } from "./apply";
import { type Schedule, type ScheduleInput, schedule, wantedReplicas } from "./schedule";

// The planner on random fleets: mixed classes (one the configuration does not know), selectors,
// engines, node states, quotas, unmanaged and failed replicas, on-demand models woken or not.

const classes: Class[] = DEFAULT_CLASSES.map((c) => ({ ...c }));
const NOW = Date.UTC(2025, 5, 1);
const rank = (name: string) => classes.find((c) => c.name === name)?.rank ?? 200;

const nodeArb = fc.record({
  memoryGB: fc.constantFrom(0, 8, 15.5, 24, 32, 48, 64),
  cpuCount: fc.constantFrom(0, 4, 8, 16, 32),
  gpuTotal: fc.constantFrom(0, 0, 1, 2, 4),
  engines: fc.constantFrom([], ["llamacpp"], ["vllm"], ["llamacpp", "vllm"], ["llamacpp", "vllm"]),
  gpu: fc.constantFrom(undefined, "a100", "t4"),
  state: fc.constantFrom("ready", "ready", "ready", "ready", "ready", "draining", "down"),
});

const modelArb = fc.record({
  class: fc.constantFrom("critical", "standard", "standard", "batch", "batch", "experimental"),
  owner: fc.constantFrom("", "a", "b"),
  minMemoryGB: fc.constantFrom(0, 2, 4, 8, 16, 24),
  cpuCores: fc.constantFrom(0, 1, 2, 4),
  gpus: fc.constantFrom(0, 0, 0, 1),
  engine: fc.constantFrom("llamacpp", "vllm"),
  a100: fc.boolean(),
  mode: fc.constantFrom("always", "always", "ondemand", "stopped"),
  replicas: fc.integer({ min: 1, max: 4 }),
  woken: fc.constantFrom(undefined, 0, 600_000),
});

const replicaArb = fc.record({
  /** A model's index mostly; 6 and 7 are unmanaged. */
  model: fc.oneof({ arbitrary: fc.nat(5), weight: 6 }, { arbitrary: fc.constantFrom(6, 7), weight: 1 }),
  state: fc.constantFrom("starting", "ready", "ready", "ready", "stopping", "failed", "pending"),
  memoryGB: fc.constantFrom(2, 4, 8, 16),
  cpuCores: fc.constantFrom(0, 1, 2),
  startedAt: fc.nat(50),
});

const limitArb = (max: number) => fc.option(fc.nat(max), { nil: null });
const quotaArb = fc.record({
  memoryGB: limitArb(96),
  cpuCores: limitArb(24),
  gpus: limitArb(4),
  replicas: limitArb(8),
});

type Drawn<A> = A extends fc.Arbitrary<infer T> ? T : never;

interface Fleet {
  models: Model[];
  nodes: Node[];
  replicas: Replica[];
  quotas: Quota[];
  wakes: Map<string, number>;
}

const fleetArb = (options: { settled?: boolean } = {}) =>
  fc
    .record({
      nodes: fc.array(fc.record({ facts: nodeArb, replicas: fc.array(replicaArb, { maxLength: 5 }) }), {
        maxLength: 7,
      }),
      models: fc.array(modelArb, { minLength: 1, maxLength: 6 }),
      pending: fc.array(replicaArb, { maxLength: 3 }),
      quotas: fc.record({ a: fc.option(quotaArb), b: fc.option(quotaArb) }),
    })
    .map((raw) => build(raw, options.settled ?? false));

function build(
  raw: {
    nodes: { facts: Drawn<typeof nodeArb>; replicas: Drawn<typeof replicaArb>[] }[];
    models: Drawn<typeof modelArb>[];
    pending: Drawn<typeof replicaArb>[];
    quotas: { a: Drawn<typeof quotaArb> | null; b: Drawn<typeof quotaArb> | null };
  },
  settled: boolean,
): Fleet {
  const nodes = raw.nodes.map(({ facts }, i) =>
    makeNode({
      ...facts,
      name: `n${i}`,
      engines: [...facts.engines],
      labels: facts.gpu ? { gpu: facts.gpu } : {},
    }),
  );
  const wakes = new Map<string, number>();
  const models = raw.models.map((m, i) => {
    const name = `m${i}`;
    if (m.woken !== undefined) wakes.set(name, NOW - m.woken);
    const scaling =
      m.mode === "always"
        ? { min: m.replicas, max: m.replicas, idleTimeoutSeconds: 300 }
        : { min: 0, max: m.mode === "ondemand" ? m.replicas : 0, idleTimeoutSeconds: 300 };
    const profile = makeProfile({ ...m, name: "p", nodeSelector: m.a100 ? { gpu: "a100" } : {} });
    return makeModel({ name, class: m.class, owner: m.owner, scaling, profiles: [profile] });
  });
  const drawn = [
    ...raw.nodes.flatMap((n, i) => n.replicas.map((r) => ({ ...r, node: `n${i}` as string | null }))),
    ...raw.pending.map((r) => ({ ...r, state: "pending" as const, node: null })),
  ];
  const replicas = drawn.flatMap((r, i) => {
    // "Settled" fleets have nothing on its way in or out: only then does headroom's count apply.
    if (settled && r.node !== null && (r.state === "stopping" || r.state === "pending")) return [];
    const model = models[r.model];
    // ... and pending replicas there ask for their model's need, as the planner makes them.
    const need = settled && r.node === null && model ? model.profiles[0] : undefined;
    return [
      makeReplica({
        id: `r${i}`,
        model: model?.name ?? `ghost${r.model}`,
        node: r.node,
        state: r.state,
        memoryGB: need?.minMemoryGB ?? r.memoryGB,
        cpuCores: need?.cpuCores ?? r.cpuCores,
        gpus: need?.gpus ?? 0,
        startedAt: new Date(Date.UTC(2025, 0, 1, 0, r.startedAt)).toISOString(),
      }),
    ];
  });
  const quotas: Quota[] = [];
  if (raw.quotas.a) quotas.push({ owner: "a", ...raw.quotas.a });
  if (raw.quotas.b) quotas.push({ owner: "b", ...raw.quotas.b });
  return { models, nodes, replicas, quotas, wakes };
}

/** Ids unique across runs, as the store's are. */
let made = 0;
function plan(fleet: Fleet, replicas = fleet.replicas): Schedule {
  const input: ScheduleInput = { ...fleet, replicas, classes, now: NOW, newId: (m) => `${m}-x${++made}` };
  return schedule(input);
}

/** The agents' side: stopping replicas go, starting ones become ready; pending ones are not theirs. */
function agentsApply(replicas: readonly Replica[]): Replica[] {
  return replicas
    .filter((r) => r.state !== "stopping")
    .map((r) => (r.state === "starting" ? { ...r, state: "ready" as const } : r));
}

type Vector = [number, number, number];
function sum(replicas: readonly Replica[]): Vector {
  return replicas.reduce<Vector>((s, r) => [s[0] + r.memoryGB, s[1] + r.cpuCores, s[2] + r.gpus], [0, 0, 0]);
}

/** Per node: what runs there (stopping included) and what stays once stopping replicas are gone. */
function usage(replicas: readonly Replica[], node: Node) {
  const here = replicas.filter((r) => r.node === node.name && r.state !== "failed");
  return {
    running: sum(here.filter((r) => r.state !== "pending")),
    staying: sum(here.filter((r) => r.state !== "stopping")),
  };
}

function ownerUsage(fleet: Fleet, replicas: readonly Replica[], owner: string) {
  const owned = replicas.filter(
    (r) => r.state !== "failed" && fleet.models.find((m) => m.name === r.model)?.owner === owner,
  );
  return { memoryGB: sum(owned)[0], cpuCores: sum(owned)[1], gpus: sum(owned)[2], replicas: owned.length };
}

describe("the planner on random fleets", () => {
  it("never fills a node past its capacity, stopping replicas counted as still holding", () => {
    fc.assert(
      fc.property(fleetArb(), (fleet) => {
        const next = applySchedule(fleet.replicas, plan(fleet));
        const capacity = (n: Node): Vector => [n.memoryGB, n.cpuCount, n.gpuTotal];
        for (const node of fleet.nodes) {
          const before = usage(fleet.replicas, node);
          const after = usage(next, node);
          // Agents may report more than fits; the planner never adds to a dimension already past it.
          capacity(node).forEach((cap, d) => {
            expect(after.running[d]).toBeLessThanOrEqual(Math.max(cap, before.running[d] ?? 0));
            expect(after.staying[d]).toBeLessThanOrEqual(Math.max(cap, before.staying[d] ?? 0));
          });
        }
      }),
      { numRuns: 500 },
    );
  });

  it("evicts only strictly lower classes, and never touches an unmanaged replica on a node", () => {
    fc.assert(
      fc.property(fleetArb(), (fleet) => {
        const result = plan(fleet);
        const classOf = new Map(fleet.models.map((m) => [m.name, m.class]));
        for (const e of result.evict) {
          const victimClass = classOf.get(e.replica.model);
          expect(victimClass).toBeDefined();
          expect(rank(victimClass ?? "")).toBeLessThan(rank(e.preemptor.className));
          // A nominated victim loses its node: where it was is where the preemptor went.
          const was = fleet.replicas.find((r) => r.id === e.replica.id);
          const preemptor = result.place.find((r) => r.id === e.preemptor.replica);
          expect(preemptor?.node).toBe(was?.node);
        }
        // Only a replica on no node (one the scheduler made, for a model since removed) is cleared away.
        for (const { replica, removed } of scheduleWrites(result))
          expect(classOf.has(replica.model) || (removed && replica.node === null)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("never takes an owner past a quota limit it was within", () => {
    fc.assert(
      fc.property(fleetArb(), (fleet) => {
        const next = applySchedule(fleet.replicas, plan(fleet));
        for (const quota of fleet.quotas) {
          const before = ownerUsage(fleet, fleet.replicas, quota.owner);
          const after = ownerUsage(fleet, next, quota.owner);
          for (const d of ["memoryGB", "cpuCores", "gpus", "replicas"] as const) {
            const limit = quota[d];
            if (limit !== null) expect(after[d]).toBeLessThanOrEqual(Math.max(limit, before[d]));
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it("decides nothing when planned again on its own output, and leaves every pending replica a reason", () => {
    fc.assert(
      fc.property(fleetArb(), (fleet) => {
        const result = plan(fleet);
        const next = applySchedule(fleet.replicas, result);
        expect(changesNothing(plan(fleet, next))).toBe(true);
        for (const r of next)
          if (r.state === "pending" && fleet.models.some((m) => m.name === r.model))
            expect(r.reason ?? "").not.toBe("");
      }),
      { numRuns: 500 },
    );
  });

  it("reaches a stable state with the agents, where every model runs what it wants or says why not", () => {
    fc.assert(
      fc.property(fleetArb(), (fleet) => {
        let replicas = fleet.replicas;
        let result = plan(fleet, replicas);
        let rounds = 0;
        while (
          !changesNothing(result) ||
          replicas.some((r) => r.state === "stopping" || r.state === "starting")
        ) {
          rounds += 1;
          expect(rounds).toBeLessThan(12);
          replicas = agentsApply(applySchedule(replicas, result));
          result = plan(fleet, replicas);
        }
        for (const model of fleet.models) {
          const wanted = wantedReplicas(model, fleet.wakes.get(model.name), NOW);
          const mine = replicas.filter((r) => r.model === model.name && r.state !== "failed");
          const running = mine.filter((r) => r.state === "ready" && r.node !== null);
          const waiting = mine.filter((r) => r.state === "pending");
          const heldBack = result.heldBack.some((h) => h.model === model.name);
          const onDraining = running.filter(
            (r) => fleet.nodes.find((n) => n.name === r.node)?.state === "draining",
          );
          expect(running.length - onDraining.length + waiting.length).toBeLessThanOrEqual(wanted);
          if (running.length - onDraining.length < wanted) expect(waiting.length > 0 || heldBack).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("places exactly what headroom counts for the highest class: free first, then by preemption", () => {
    fc.assert(
      fc.property(fleetArb({ settled: true }), (fleet) => {
        const top = fleet.models.filter((m) => m.class === "critical");
        const model = top[0];
        fc.pre(top.length === 1 && model !== undefined);
        if (!model) return;
        // Other models' pending replicas are left out: dropping an extra one would free quota first.
        const replicas = fleet.replicas.filter((r) => r.node !== null || r.model === model.name);
        const index = indexFleet({ ...fleet, replicas, classes });
        const room = headroom(model, index, fleet.quotas);
        fc.pre(room.free !== null);
        const draining = new Set(fleet.nodes.filter((n) => n.state === "draining").map((n) => n.name));
        const mine = replicas.filter((r) => r.model === model.name);
        const settled = mine.filter(
          (r) => (r.state === "starting" || r.state === "ready") && r.node !== null,
        );
        const missing =
          wantedReplicas(model, fleet.wakes.get(model.name), NOW) -
          settled.filter((r) => !draining.has(r.node ?? "")).length;
        fc.pre(missing >= 0);
        // Pending replicas are placed before new ones are made, and only new ones need the quota.
        const records =
          mine.filter((r) => r.node === null).length + (room.quotaRemaining ?? Number.POSITIVE_INFINITY);

        const placed = plan(fleet, replicas).place.filter((r) => r.model === model.name);

        const starting = placed.filter((r) => r.state === "starting").length;
        expect(starting).toBe(Math.min(missing, room.free ?? 0, records));
        expect(placed.length).toBe(Math.min(missing, (room.free ?? 0) + (room.byPreemption ?? 0), records));
      }),
      { numRuns: 1000 },
    );
  });
});

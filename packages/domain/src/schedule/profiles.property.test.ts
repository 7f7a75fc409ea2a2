import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeModel, makeNode, makeProfile } from "../../test/factories";
import { DEFAULT_CLASSES } from "../classes";
import { profileNeed } from "../need";
import type { Class, Model, Node, Quota, Replica } from "../schemas";
import { applySchedule, changesNothing } from "./apply";
import { type ScheduleInput, schedule } from "./schedule";

// The planner on random fleets of models with several profiles (SPEC §2.6 "Profiles").

const classes: Class[] = DEFAULT_CLASSES.map((c) => ({ ...c }));
const NOW = Date.UTC(2025, 5, 1);

const profileArb = fc.record({
  engine: fc.constantFrom("llamacpp", "vllm"),
  priority: fc.constantFrom(50, 100, 200),
  minMemoryGB: fc.constantFrom(2, 4, 8, 16),
  cpuCores: fc.constantFrom(0, 1, 4),
  gpus: fc.constantFrom(0, 0, 1),
});
const modelArb = fc.record({
  class: fc.constantFrom("critical", "standard", "batch"),
  owner: fc.constantFrom("", "a"),
  profiles: fc.array(profileArb, { minLength: 1, maxLength: 3 }),
  replicas: fc.integer({ min: 1, max: 4 }),
});
const nodeArb = fc.record({
  memoryGB: fc.constantFrom(8, 16, 32),
  cpuCount: fc.constantFrom(4, 8),
  gpuTotal: fc.constantFrom(0, 1, 2),
  engines: fc.constantFrom(["llamacpp"], ["vllm"], ["llamacpp", "vllm"]),
});
const quotaArb = fc.option(
  fc.record({ memoryGB: fc.option(fc.nat(48), { nil: null }), gpus: fc.option(fc.nat(2), { nil: null }) }),
  { nil: null },
);

interface Fleet {
  models: Model[];
  nodes: Node[];
  quotas: Quota[];
}

const fleetArb = fc
  .record({
    models: fc.array(modelArb, { minLength: 1, maxLength: 4 }),
    nodes: fc.array(nodeArb, { minLength: 1, maxLength: 4 }),
    quota: quotaArb,
  })
  .map(
    (raw): Fleet => ({
      models: raw.models.map((m, i) =>
        makeModel({
          name: `m${i}`,
          class: m.class,
          owner: m.owner,
          scaling: { min: m.replicas, max: m.replicas, idleTimeoutSeconds: 300 },
          profiles: m.profiles.map((p, j) => makeProfile({ ...p, name: `p${j}` })),
        }),
      ),
      nodes: raw.nodes.map((n, i) => makeNode({ ...n, name: `n${i}`, engines: [...n.engines] })),
      quotas: raw.quota ? [{ owner: "a", cpuCores: null, replicas: null, ...raw.quota }] : [],
    }),
  );

let made = 0;
function plan(fleet: Fleet, replicas: Replica[]) {
  const input: ScheduleInput = {
    ...fleet,
    replicas,
    classes,
    wakes: new Map(),
    now: NOW,
    newId: (m) => `${m}-x${++made}`,
  };
  return schedule(input);
}

/** The agents' side: stopping replicas go, starting ones become ready. */
function agentsApply(replicas: readonly Replica[]): Replica[] {
  return replicas
    .filter((r) => r.state !== "stopping")
    .map((r) => (r.state === "starting" ? { ...r, state: "ready" as const } : r));
}

/** Runs planner and agents to a fixed point, checking every step. */
function settle(fleet: Fleet, check: (replicas: Replica[]) => void): Replica[] {
  let replicas: Replica[] = [];
  for (let round = 0; round < 12; round++) {
    const result = plan(fleet, replicas);
    replicas = applySchedule(replicas, result);
    check(replicas);
    if (changesNothing(result) && !replicas.some((r) => r.state === "stopping" || r.state === "starting"))
      return replicas;
    replicas = agentsApply(replicas);
  }
  throw new Error("the planner and agents did not settle in 12 rounds");
}

describe("placing models of several profiles on random fleets", () => {
  it("never fills a node or an owner's quota past its limit, whatever profiles it falls back to", () => {
    fc.assert(
      fc.property(fleetArb, (fleet) => {
        settle(fleet, (replicas) => {
          const live = replicas.filter((r) => r.state !== "failed");
          for (const node of fleet.nodes) {
            const here = live.filter((r) => r.node === node.name);
            expect(here.reduce((s, r) => s + r.memoryGB, 0)).toBeLessThanOrEqual(node.memoryGB);
            expect(here.reduce((s, r) => s + r.cpuCores, 0)).toBeLessThanOrEqual(node.cpuCount);
            expect(here.reduce((s, r) => s + r.gpus, 0)).toBeLessThanOrEqual(node.gpuTotal);
          }
          for (const quota of fleet.quotas) {
            const owned = live.filter(
              (r) => fleet.models.find((m) => m.name === r.model)?.owner === quota.owner,
            );
            if (quota.memoryGB !== null)
              expect(owned.reduce((s, r) => s + r.memoryGB, 0)).toBeLessThanOrEqual(quota.memoryGB);
            if (quota.gpus !== null)
              expect(owned.reduce((s, r) => s + r.gpus, 0)).toBeLessThanOrEqual(quota.gpus);
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it("gives each replica one of its model's profiles, at that profile's need, on a node with its engine", () => {
    fc.assert(
      fc.property(fleetArb, (fleet) => {
        const replicas = settle(fleet, () => {});
        for (const r of replicas) {
          const profile = fleet.models
            .find((m) => m.name === r.model)
            ?.profiles.find((p) => p.name === r.profile);
          expect(profile).toBeDefined();
          const need = profileNeed(profile);
          expect([r.memoryGB, r.cpuCores, r.gpus]).toEqual([need.memoryGB, need.cpuCores, need.gpus]);
          const node = fleet.nodes.find((n) => n.name === r.node);
          if (node) expect(node.engines).toContain(profile?.engine);
        }
      }),
      { numRuns: 300 },
    );
  });
});

import { describe, expect, it } from "vitest";
import { makeModel, makeNode, makeQuota, replicaOf } from "../../test/factories";
import { PLAN_NOW, planFleet } from "../../test/plan";
import type { Replica } from "../schemas";
import { changesNothing } from "./apply";
import { wantedReplicas } from "./schedule";

// SPEC §2.6 by example: each test builds the fleet it is about and reads the planner's decisions.

const NOW = PLAN_NOW;
const plan = planFleet;

/** What the agents do with a schedule: stopping replicas go, starting ones become ready. */
function agentsApply(replicas: readonly Replica[]): Replica[] {
  return replicas
    .filter((r) => r.state !== "stopping")
    .map((r) => (r.state === "starting" ? { ...r, state: "ready" as const } : r));
}

describe("placing missing replicas", () => {
  it("binpacks: the node left with the least free memory, and the same plan again changes nothing", () => {
    const model = makeModel({ need: { minMemoryGB: 8, cpuCores: 2 } });
    const roomy = makeNode({ memoryGB: 64 });
    const snug = makeNode({ memoryGB: 16 });
    const tight = makeNode({ memoryGB: 6 });

    const result = plan({ models: [model], nodes: [roomy, snug, tight] });

    expect(result.place).toEqual([
      expect.objectContaining({
        model: model.name,
        node: snug.name,
        state: "starting",
        memoryGB: 8,
        cpuCores: 2,
      }),
    ]);
    expect(result.place[0]?.id).toMatch(new RegExp(`^${model.name}-`));
    expect(changesNothing(result.again)).toBe(true);
  });

  it("uses only ready nodes that match the selector, have the engine (or report none) and report resources", () => {
    const model = makeModel({
      scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 },
      need: { engine: "vllm", nodeSelector: { gpu: "a100" } },
    });
    const labels = { gpu: "a100" };
    const nodes = [
      makeNode({ labels, state: "draining" }),
      makeNode({ labels, state: "down" }),
      makeNode({ labels: { gpu: "t4" } }),
      makeNode({ labels, engines: ["llamacpp"] }),
      makeNode({ labels, memoryGB: 0 }),
      makeNode({ labels, engines: [] }),
    ];

    const result = plan({ models: [model], nodes });

    expect(result.place.map((r) => r.node)).toEqual([nodes[5]?.name, nodes[5]?.name]);
  });

  it("leaves a replica pending with the reason in numbers when nothing fits", () => {
    const model = makeModel({ need: { minMemoryGB: 24, cpuCores: 2 } });
    const small = makeNode({ memoryGB: 16 });
    const smaller = makeNode({ memoryGB: 8 });

    const result = plan({ models: [model], nodes: [smaller, small] });

    expect(result.pending).toEqual([
      expect.objectContaining({
        model: model.name,
        node: null,
        state: "pending",
        reason: `no node fits: needs 24 GB, the most free is 16 GB on ${small.name}`,
      }),
    ]);
    expect(changesNothing(result.again)).toBe(true);
  });

  it("says why no node may run a model at all", () => {
    const model = makeModel({ need: { engine: "vllm" } });
    const cpu = makeNode({ engines: ["llamacpp"] });
    const drained = makeNode({ state: "draining" });

    const [replica] = plan({ models: [model], nodes: [cpu, drained] }).pending;

    expect(replica?.reason).toBe(
      `no node may run it: ${cpu.name}: has no vllm engine; ${drained.name}: not ready (draining)`,
    );
  });

  it("places an existing pending replica before making a new one, and a failed one is replaced", () => {
    const model = makeModel({ scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 } });
    const node = makeNode();
    const pending = replicaOf(model, { state: "pending", node: null, reason: "no node fits" });
    const failed = replicaOf(model, { state: "failed", node: node.name });

    const result = plan({ models: [model], nodes: [node], replicas: [pending, failed] });

    expect(result.place.map((r) => [r.id === pending.id, r.node, r.state])).toEqual([
      [true, node.name, "starting"],
      [false, node.name, "starting"],
    ]);
    expect(result.stop).toEqual([]);
  });

  it("never makes a replica the owner's quota has no room for, pending ones counted", () => {
    const model = makeModel({ owner: "research", scaling: { min: 3, max: 3, idleTimeoutSeconds: 900 } });
    const quota = makeQuota({ owner: "research", replicas: 2 });
    const waiting = replicaOf(model, { state: "pending", node: null });

    const result = plan({ models: [model], nodes: [makeNode()], replicas: [waiting], quotas: [quota] });

    expect(result.place).toHaveLength(2);
    expect(result.heldBack).toEqual([
      {
        model: model.name,
        replicas: 1,
        reason: "owner research would run 3 replicas, over its limit of 2 (uses 2, asks 1)",
      },
    ]);
    expect(changesNothing(result.again)).toBe(true);
  });

  it("clears away a pending replica left by a model since removed, and nothing else of it", () => {
    const gone = makeModel();
    const node = makeNode();
    const left = replicaOf(gone, { node: null, state: "pending" });
    const running = replicaOf(gone, { node: node.name });

    const result = plan({ models: [], nodes: [node], replicas: [left, running] });

    expect(result.remove.map((r) => r.id)).toEqual([left.id]);
    expect(result.stop).toEqual([]);
  });

  it("does not place a model whose need is unknown", () => {
    const model = makeModel({ need: { minMemoryGB: 0, cpuCores: 0, gpus: 0 } });

    const [replica] = plan({ models: [model], nodes: [makeNode()] }).pending;

    expect(replica?.reason).toBe("the model's need is unknown (set its memory and cores)");
  });
});

describe("preemption", () => {
  it("gives a nomination stored without a reason one, and then plans nothing more", () => {
    // Found by the property test: a replica nominated on a node (pending there), waiting for an
    // unwanted replica to stop, came back from a run still without a reason.
    const node = makeNode({ memoryGB: 8, cpuCount: 16 });
    const sleeper = makeModel({ class: "critical", scaling: { min: 0, max: 1, idleTimeoutSeconds: 300 } });
    const wanted = makeModel({ class: "critical", need: { minMemoryGB: 4, cpuCores: 0 } });
    const big = replicaOf(sleeper, { node: node.name, state: "starting", memoryGB: 16 });
    const nominated = replicaOf(wanted, { node: node.name, state: "pending", reason: null });

    const result = plan({ models: [sleeper, wanted], nodes: [node], replicas: [big, nominated] });

    expect(result.next.find((r) => r.id === nominated.id)).toMatchObject({
      state: "pending",
      node: node.name,
      reason: `waits on ${node.name} for the replicas stopping there to leave`,
    });
    expect(result.next.find((r) => r.id === big.id)?.state).toBe("stopping");
    expect(changesNothing(result.again)).toBe(true);
  });

  it("evicts a strictly lower class; the preemptor waits on that node until the victim is gone", () => {
    const critical = makeModel({ class: "critical", need: { minMemoryGB: 32, cpuCores: 4 } });
    const batch = makeModel({ class: "batch", need: { minMemoryGB: 32, cpuCores: 4 } });
    const node = makeNode({ memoryGB: 48 });
    const victim = replicaOf(batch, { node: node.name });

    const first = plan({ models: [critical, batch], nodes: [node], replicas: [victim] });

    expect(first.evict).toEqual([
      {
        replica: expect.objectContaining({ id: victim.id, state: "stopping" }),
        className: "batch",
        preemptor: { model: critical.name, replica: expect.any(String), className: "critical" },
      },
    ]);
    expect(first.evict[0]?.replica.reason).toBe(
      `preempted by ${critical.name} (critical), which needs its room on ${node.name}`,
    );
    const waiting = first.place.find((r) => r.model === critical.name);
    expect(waiting).toMatchObject({
      node: node.name,
      state: "pending",
      reason: `waits on ${node.name} for 1 preempted replica to stop`,
    });
    expect(first.pending).toEqual([expect.objectContaining({ model: batch.name, node: null })]);
    expect(changesNothing(first.again)).toBe(true);

    const gone = agentsApply(first.next);
    const second = plan({ models: [critical, batch], nodes: [node], replicas: gone });

    expect(second.place).toEqual([
      expect.objectContaining({ id: waiting?.id, node: node.name, state: "starting", reason: null }),
    ]);
  });

  it("never evicts the same class or an unmanaged replica", () => {
    const model = makeModel({ class: "standard", need: { minMemoryGB: 32 } });
    const peer = makeModel({ class: "standard", need: { minMemoryGB: 32 } });
    const node = makeNode({ memoryGB: 64 });
    const replicas = [
      replicaOf(peer, { node: node.name }),
      replicaOf(makeModel(), { model: "hand-started", node: node.name, memoryGB: 32 }),
    ];

    const result = plan({ models: [model, peer], nodes: [node], replicas });

    expect(result.evict).toEqual([]);
    expect(result.pending).toHaveLength(1);
  });

  it("chooses the node whose victims have the lowest top class, then the fewest victims", () => {
    const critical = makeModel({ class: "critical", need: { minMemoryGB: 16, cpuCores: 1 } });
    const standard = makeModel({ class: "standard", need: { minMemoryGB: 16, cpuCores: 1 } });
    const batch = makeModel({
      class: "batch",
      scaling: { min: 3, max: 3, idleTimeoutSeconds: 900 },
      need: { minMemoryGB: 8, cpuCores: 1 },
    });
    const a = makeNode({ memoryGB: 16 });
    const b = makeNode({ memoryGB: 16 });
    const c = makeNode({ memoryGB: 16 });
    const replicas = [
      replicaOf(standard, { node: a.name }),
      replicaOf(batch, { node: b.name }),
      replicaOf(batch, { node: b.name }),
      replicaOf(batch, { node: c.name, memoryGB: 16 }),
    ];

    const result = plan({ models: [critical, standard, batch], nodes: [a, b, c], replicas });

    expect(result.evict.map((e) => [e.replica.node, e.className])).toEqual([[c.name, "batch"]]);
  });

  it("reprieves the victims not needed: the smallest set, the most important kept", () => {
    const critical = makeModel({ class: "critical", need: { minMemoryGB: 16, cpuCores: 1 } });
    const standard = makeModel({ class: "standard", need: { minMemoryGB: 16, cpuCores: 1 } });
    const batch = makeModel({ class: "batch", need: { minMemoryGB: 4, cpuCores: 1 } });
    const node = makeNode({ memoryGB: 24 });
    const small = replicaOf(batch, { node: node.name });
    const big = replicaOf(standard, { node: node.name });

    const result = plan({ models: [critical, standard, batch], nodes: [node], replicas: [small, big] });

    // Evicting the batch replica first is not enough; once the standard one goes, it is not needed.
    expect(result.evict.map((e) => e.replica.id)).toEqual([big.id]);
  });
});

describe("extra replicas, draining and on demand", () => {
  it("stops extras newest first, dropping pending ones before any running one", () => {
    const model = makeModel({ scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 } });
    const node = makeNode();
    const old = replicaOf(model, { node: node.name, startedAt: "2025-01-01T00:00:00.000Z" });
    const young = replicaOf(model, { node: node.name, startedAt: "2025-01-02T00:00:00.000Z" });
    const waiting = replicaOf(model, { node: null, state: "pending" });

    const result = plan({ models: [model], nodes: [node], replicas: [old, young, waiting] });

    expect(result.remove.map((r) => r.id)).toEqual([waiting.id]);
    expect(result.stop).toEqual([expect.objectContaining({ id: young.id, state: "stopping" })]);
    expect(result.stop[0]?.reason).toBe("more replicas than wanted (1)");
  });

  it("moves replicas off a draining node: a replacement first, the old one stopped once it is ready", () => {
    const model = makeModel();
    const draining = makeNode({ state: "draining" });
    const ready = makeNode();
    const old = replicaOf(model, { node: draining.name });

    const first = plan({ models: [model], nodes: [draining, ready], replicas: [old] });
    expect(first.place).toEqual([expect.objectContaining({ node: ready.name, state: "starting" })]);
    expect(first.stop).toEqual([]);
    expect(changesNothing(first.again)).toBe(true);

    const second = plan({ models: [model], nodes: [draining, ready], replicas: agentsApply(first.next) });
    expect(second.stop).toEqual([expect.objectContaining({ id: old.id, state: "stopping" })]);
    expect(second.stop[0]?.reason).toBe(`moved off ${draining.name}, which is draining`);
  });

  it("wants one replica of an on-demand model from a wake until it has been idle for the timeout", () => {
    const model = makeModel({ scaling: { min: 0, max: 3, idleTimeoutSeconds: 60 } });

    expect(wantedReplicas(model, undefined, NOW)).toBe(0);
    expect(wantedReplicas(model, NOW - 59_000, NOW)).toBe(1);
    expect(wantedReplicas(model, NOW - 60_000, NOW)).toBe(0);
    expect(wantedReplicas({ scaling: { min: 2, max: 2, idleTimeoutSeconds: 60 } }, undefined, NOW)).toBe(2);
    expect(wantedReplicas({ scaling: { min: 0, max: 0, idleTimeoutSeconds: 60 } }, NOW, NOW)).toBe(0);
  });

  it("places a woken on-demand model and stops it once idle", () => {
    const model = makeModel({ scaling: { min: 0, max: 2, idleTimeoutSeconds: 60 } });
    const node = makeNode();
    const wakes = new Map([[model.name, NOW]]);

    const woken = plan({ models: [model], nodes: [node], wakes });
    const idle = plan({
      models: [model],
      nodes: [node],
      replicas: agentsApply(woken.next),
      wakes,
      now: NOW + 60_000,
    });

    expect(woken.place).toHaveLength(1);
    expect(idle.stop).toEqual([expect.objectContaining({ model: model.name, state: "stopping" })]);
  });

  it("plans the higher class first: it gets the last free place", () => {
    const critical = makeModel({ name: "zz-critical", class: "critical" });
    const batch = makeModel({ name: "aa-batch", class: "batch" });
    const node = makeNode({ memoryGB: 8 });

    const result = plan({ models: [batch, critical], nodes: [node] });

    expect(result.place.map((r) => r.model)).toEqual([critical.name]);
    expect(result.pending.map((r) => r.model)).toEqual([batch.name]);
  });
});

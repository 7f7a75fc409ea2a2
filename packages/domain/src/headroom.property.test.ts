import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { build, classes, type Fleet, fleetArb, replicaArb } from "../test/randomFleet";
import { indexFleet, reindexNode } from "./fleetIndex";
import { headroomAll, victimsFor } from "./headroom";
import { headroomSchema, type Model, type Replica } from "./schemas";

// Headroom is checked against a reference written the slow, obvious way from SPEC §2.4.

type Vector = [number, number, number];

/** The reference: every rule spelled out, every count by trying k = 0, 1, 2, … */
function reference(model: Model, fleet: Fleet) {
  const rankOf = (name: string) =>
    classes.find((c) => c.name === name)?.rank ?? classes.find((c) => c.name === "standard")?.rank ?? 200;
  const catalogue = new Map(fleet.models.map((m) => [m.name, m]));
  const profile = model.profiles[0];
  const need: Vector = [profile?.minMemoryGB ?? 0, profile?.cpuCores ?? 0, profile?.gpus ?? 0];
  const fitsIn = (k: number, room: Vector) => need.every((r, d) => r === 0 || k * r <= (room[d] ?? 0));
  const largest = (room: Vector) => {
    let k = 0;
    while (fitsIn(k + 1, room)) k++;
    return k;
  };
  const sum = (replicas: Replica[]): Vector => [
    replicas.reduce((s, r) => s + r.memoryGB, 0),
    replicas.reduce((s, r) => s + r.cpuCores, 0),
    replicas.reduce((s, r) => s + r.gpus, 0),
  ];

  let quotaRemaining: number | null = null;
  const quota = fleet.quotas.find((q) => q.owner === model.owner);
  if (quota) {
    const owned = fleet.replicas.filter(
      (r) => r.state !== "failed" && catalogue.get(r.model)?.owner === model.owner,
    );
    const used = sum(owned);
    const bounds: number[] = [];
    (["memoryGB", "cpuCores", "gpus"] as const).forEach((dim, d) => {
      const limit = quota[dim];
      const r = need[d] ?? 0;
      if (limit !== null && r > 0) bounds.push(Math.floor((limit - (used[d] ?? 0)) / r));
    });
    if (quota.replicas !== null) bounds.push(quota.replicas - owned.length);
    if (bounds.length > 0) quotaRemaining = Math.max(0, Math.min(...bounds));
  }
  if (need.every((r) => r === 0)) return { free: null, byPreemption: null, total: null, quotaRemaining };

  let free = 0;
  let fits = 0;
  for (const node of fleet.nodes) {
    const eligible =
      node.state === "ready" &&
      Object.entries(profile?.nodeSelector ?? {}).every(([k, v]) => node.labels[k] === v) &&
      (node.engines.length === 0 || node.engines.includes(profile?.engine ?? "")) &&
      node.memoryGB > 0 &&
      node.cpuCount > 0;
    if (!eligible) continue;
    const here = fleet.replicas.filter((r) => r.node === node.name && r.state !== "failed");
    const held = sum(here);
    const room: Vector = [node.memoryGB - held[0], node.cpuCount - held[1], node.gpuTotal - held[2]];
    const outranked = sum(
      here.filter((r) => {
        const owner = catalogue.get(r.model);
        return owner !== undefined && r.model !== model.name && rankOf(owner.class) < rankOf(model.class);
      }),
    );
    free += largest(room);
    fits += largest([room[0] + outranked[0], room[1] + outranked[1], room[2] + outranked[2]]);
  }
  const total = quotaRemaining === null ? fits : Math.min(fits, quotaRemaining);
  return { free, byPreemption: fits - free, total, quotaRemaining };
}

describe("headroom against a brute-force reference", () => {
  it("free, byPreemption, total and quotaRemaining agree on random fleets", () => {
    fc.assert(
      fc.property(fleetArb, (fleet) => {
        const index = indexFleet({ ...fleet, classes });
        const rooms = headroomAll(fleet.models, index, fleet.quotas);
        fleet.models.forEach((model, i) => {
          const room = rooms[i];
          const expected = reference(model, fleet);
          expect({
            free: room?.free,
            byPreemption: room?.byPreemption,
            total: room?.total,
            quotaRemaining: room?.quotaRemaining,
          }).toEqual(expected);
          const capacity = (expected.free ?? 0) + (expected.byPreemption ?? 0);
          expect(room?.limitedBy).toBe(
            expected.free === null
              ? "unknown-need"
              : expected.quotaRemaining !== null && expected.quotaRemaining < capacity
                ? "quota"
                : "capacity",
          );
        });
      }),
      { numRuns: 1000 },
    );
  });

  it("per-node lines add up, say why a node holds none, and the result matches its schema", () => {
    fc.assert(
      fc.property(fleetArb, (fleet) => {
        const index = indexFleet({ ...fleet, classes });
        for (const room of headroomAll(fleet.models, index, fleet.quotas)) {
          expect(headroomSchema.parse(JSON.parse(JSON.stringify(room)))).toBeTruthy();
          expect(room.nodes.map((n) => n.node)).toEqual(fleet.nodes.map((n) => n.name));
          for (const line of room.nodes) {
            expect(line.fitFree).toBeLessThanOrEqual(line.fitPreempt);
            expect(line.reason === null).toBe(line.fitFree > 0);
          }
          if (room.free !== null) {
            expect(room.nodes.reduce((s, n) => s + n.fitFree, 0)).toBe(room.free);
            expect(room.nodes.reduce((s, n) => s + n.fitPreempt, 0)).toBe(
              room.free + (room.byPreemption ?? 0),
            );
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("preemption never names a replica of equal or higher class, an unmanaged one, or the model's own", () => {
    const rank = (name: string) => classes.find((c) => c.name === name)?.rank ?? 200;
    fc.assert(
      fc.property(fleetArb, (fleet) => {
        const index = indexFleet({ ...fleet, classes });
        const rooms = headroomAll(fleet.models, index, fleet.quotas);
        fleet.models.forEach((model, i) => {
          const room = rooms[i];
          if (!room || room.total === null || room.free === null) return;
          for (const name of Object.keys(room.victimsByClass)) {
            expect(rank(name)).toBeLessThan(rank(model.class));
          }
          const places = room.total - room.free;
          expect(victimsFor(model, index, places).length).toBe(
            Object.values(room.victimsByClass).reduce((s, n) => s + n, 0),
          );
          // Every number of preemption places, not only the total: the partial choice across nodes.
          for (let wanted = 1; wanted <= (room.byPreemption ?? 0); wanted++) {
            const victims = victimsFor(model, index, wanted);
            for (const v of victims) {
              expect(v.replica.model).not.toBe(model.name);
              expect(fleet.models.some((m) => m.name === v.replica.model)).toBe(true);
              expect(rank(v.className)).toBeLessThan(rank(model.class));
              expect(v.replica.state).not.toBe("failed");
            }
            // Evicting them makes room for the free places and the ones wanted.
            const evicted = new Set(victims.map((v) => v.replica.id));
            const replicas = fleet.replicas.filter((r) => !evicted.has(r.id));
            const [after] = headroomAll([model], indexFleet({ ...fleet, replicas, classes }), []);
            expect(after?.free ?? 0).toBeGreaterThanOrEqual(room.free + wanted);
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it("reindexing one node after a heartbeat gives what indexing afresh gives", () => {
    fc.assert(
      fc.property(fleetArb, fc.nat(6), fc.array(replicaArb, { maxLength: 6 }), (fleet, which, reported) => {
        const node = fleet.nodes[which];
        if (!node) return;
        const heartbeat = { ...node, memoryGB: node.memoryGB + 8, state: "ready" as const };
        // The node's replicas now: some of the old ones, a pending one placed here, and new ones.
        const kept = fleet.replicas.filter((r) => r.node === node.name && r.state !== "failed");
        const placed = fleet.replicas.filter((r) => r.node === null).slice(0, 1);
        const fresh = build({
          nodes: [],
          models: [],
          pending: reported,
          quotas: { a: null, b: null },
        }).replicas.map((r, i) => ({
          ...r,
          id: `new${i}`,
          state: "starting" as const,
          model: fleet.models[i % fleet.models.length]?.name ?? r.model,
        }));
        const now = [...kept, ...placed, ...fresh].map((r) => ({ ...r, node: node.name }));
        const ids = new Set(now.map((r) => r.id));
        const elsewhere = fleet.replicas.filter((r) => r.node !== node.name && !ids.has(r.id));
        const nodes = fleet.nodes.map((n) => (n.name === node.name ? heartbeat : n));

        const before = indexFleet({ ...fleet, classes });
        const next = reindexNode(before, heartbeat, now);
        const rebuilt = indexFleet({
          nodes,
          replicas: [...elsewhere, ...now],
          models: fleet.models,
          classes,
        });
        const view = (i: ReturnType<typeof indexFleet>) =>
          JSON.stringify(headroomAll(fleet.models, i, fleet.quotas));
        expect(view(next)).toBe(view(rebuilt));
      }),
      { numRuns: 300 },
    );
  });
});

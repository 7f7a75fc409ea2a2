import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classes, fleetArb } from "../test/randomFleet";
import { capacityByClass, nodeView } from "./capacity";
import { indexFleet } from "./fleetIndex";
import { headroomAll } from "./headroom";
import { runningText } from "./running";
import type { ClassUsage, Replica } from "./schemas";

// Every screen's numbers come from the same replicas (issue 18): the Capacity totals and class
// table (`GET /capacity`), the Fleet page's node bars (`GET /fleet/nodes`), the cards' running
// counts (`GET /headroom`) and the replica list (`GET /fleet/replicas`) must agree on random
// fleets with draining and down nodes, counted here the slow way from the replicas.

const DIMS = ["memoryGB", "cpuCores", "gpus", "replicas"] as const;

function sumRows(rows: readonly ClassUsage[]) {
  const out = { memoryGB: 0, cpuCores: 0, gpus: 0, replicas: 0 };
  for (const row of rows) for (const d of DIMS) out[d] += row[d];
  return out;
}

function sumReplicas(replicas: readonly Replica[]) {
  const out = { memoryGB: 0, cpuCores: 0, gpus: 0, replicas: replicas.length };
  for (const r of replicas) {
    out.memoryGB += r.memoryGB;
    out.cpuCores += r.cpuCores;
    out.gpus += r.gpus;
  }
  return out;
}

describe("the numbers every screen shows agree", () => {
  it("capacity's class rows, elsewhere, totals and the node bars count the same replicas", () => {
    fc.assert(
      fc.property(fleetArb, (fleet) => {
        const index = indexFleet({ ...fleet, classes });
        const capacity = capacityByClass(index);
        const stateOf = new Map(fleet.nodes.map((n) => [n.name, n.state]));
        const held = fleet.replicas.filter((r) => r.node !== null && r.state !== "failed");
        const onReady = held.filter((r) => stateOf.get(r.node ?? "") === "ready");
        const away = held.filter((r) => stateOf.get(r.node ?? "") !== "ready");

        expect(sumRows(capacity.byClass)).toEqual(sumReplicas(onReady));
        expect(sumRows(capacity.elsewhere)).toEqual(sumReplicas(away));

        // The Fleet page's bars: ready nodes add up to the class table, the others to elsewhere.
        const bars = fleet.nodes.map((n) => ({ state: n.state, usage: nodeView(index, n).usage }));
        const barsOf = (ready: boolean) =>
          sumRows(bars.filter((b) => (b.state === "ready") === ready).flatMap((b) => b.usage.byClass));
        expect(barsOf(true)).toEqual(sumRows(capacity.byClass));
        expect(barsOf(false)).toEqual(sumRows(capacity.elsewhere));

        // Total over ready nodes; used + free = total unless a node holds more than it has.
        const ready = fleet.nodes.filter((n) => n.state === "ready");
        const exact = {
          memoryGB: ready.reduce((s, n) => s + n.memoryGB, 0),
          cpuCores: ready.reduce((s, n) => s + n.cpuCount, 0),
          gpus: ready.reduce((s, n) => s + n.gpuTotal, 0),
        };
        const overcommitted = ready.some((n) => {
          const here = sumReplicas(onReady.filter((r) => r.node === n.name));
          return here.memoryGB > n.memoryGB || here.cpuCores > n.cpuCount || here.gpus > n.gpuTotal;
        });
        const used = sumRows(capacity.byClass);
        for (const d of ["memoryGB", "cpuCores", "gpus"] as const) {
          expect(capacity.total[d]).toBe(Math.floor(exact[d]));
          if (overcommitted) expect(capacity.free[d] + used[d]).toBeGreaterThanOrEqual(capacity.total[d]);
          else expect(capacity.free[d] + used[d]).toBe(capacity.total[d]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("each card's running, starting and elsewhere are its replicas, counted apart", () => {
    fc.assert(
      fc.property(fleetArb, (fleet) => {
        const index = indexFleet({ ...fleet, classes });
        const rooms = headroomAll(fleet.models, index, fleet.quotas);
        const stateOf = new Map(fleet.nodes.map((n) => [n.name, n.state]));
        const capacity = capacityByClass(index);
        let counted = 0;
        fleet.models.forEach((model, i) => {
          const room = rooms[i];
          const mine = fleet.replicas.filter((r) => r.model === model.name && r.node !== null);
          const onReady = (r: Replica) => stateOf.get(r.node ?? "") === "ready";
          const expected = {
            current: mine.filter((r) => r.state === "ready" && onReady(r)).length,
            starting: mine.filter((r) => r.state === "starting" && onReady(r)).length,
            elsewhere: mine.filter((r) => (r.state === "ready" || r.state === "starting") && !onReady(r))
              .length,
          };
          expect({ current: room?.current, starting: room?.starting, elsewhere: room?.elsewhere }).toEqual(
            expected,
          );
          counted += expected.current + expected.starting + expected.elsewhere;
          const text = runningText(expected);
          expect(text.startsWith(`${expected.current} running`)).toBe(true);
          expect(text.includes("starting")).toBe(expected.starting > 0);
          expect(text.includes("draining or down")).toBe(expected.elsewhere > 0);
        });
        // The cards never count more replicas than the class rows hold.
        const rows = sumRows([...capacity.byClass, ...capacity.elsewhere]).replicas;
        expect(counted).toBeLessThanOrEqual(rows);
      }),
      { numRuns: 300 },
    );
  });
});

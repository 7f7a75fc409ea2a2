import type { ClassUsage } from "@llmgw/domain";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { markSilentNodesDown } from "../src/services/liveness";
import { heartbeat, modelInput, replicaReport } from "./factories";
import { beatPlaced, createOk, useApi } from "./harness";

// Issue 18: one definition per number, on every screen's API. Random fleets (ready, draining and
// down nodes; ready, starting and unmanaged replicas) are reported as heartbeats; then
// GET /capacity, /headroom, /fleet/nodes and /fleet/replicas must count the same replicas.
// No scheduler runs here (the harness starts none): the fleet is what the agents say.

const api = useApi();

const nodeArb = fc.record({
  state: fc.constantFrom("ready", "ready", "draining", "down"),
  memoryGB: fc.constantFrom(16, 32, 64),
  cpuCount: fc.constantFrom(4, 8, 16),
  replicas: fc.array(fc.record({ model: fc.nat(3), state: fc.constantFrom("ready", "ready", "starting") }), {
    maxLength: 4,
  }),
});
const fleetArb = fc.record({
  models: fc.array(fc.constantFrom("critical", "standard", "batch"), { minLength: 1, maxLength: 3 }),
  nodes: fc.array(nodeArb, { minLength: 1, maxLength: 4 }),
});

const DIMS = ["replicas", "memoryGB", "cpuCores", "gpus"] as const;
function sum(rows: readonly ClassUsage[]) {
  const out = { replicas: 0, memoryGB: 0, cpuCores: 0, gpus: 0 };
  for (const row of rows) for (const d of DIMS) out[d] += row[d];
  return out;
}

let run = 0;

describe("the numbers every screen's API gives agree", () => {
  it("capacity, node bars, headroom and the replica list count the same replicas", async () => {
    await fc.assert(
      fc.asyncProperty(fleetArb, async (fleet) => {
        run += 1;
        const models: { name: string }[] = [];
        for (const cls of fleet.models)
          models.push(await createOk(api, modelInput({ name: `agree-${run}-${models.length}`, class: cls })));
        const bodies = fleet.nodes.map((n, i) =>
          heartbeat({
            node: { name: `agree-${run}-n${i}`, memoryGB: n.memoryGB, cpuCount: n.cpuCount },
            replicas: n.replicas.map((r) =>
              // An index past the catalogue is a model it does not know: an unmanaged replica.
              replicaReport({ model: models[r.model]?.name ?? `agree-${run}-ghost`, state: r.state }),
            ),
          }),
        );
        // The down ones beat first, then fall silent: the clock moves on past three intervals.
        const down = bodies.filter((_, i) => fleet.nodes[i]?.state === "down");
        for (const body of down) await beatPlaced(api, body);
        const later = Date.now() + run * (3 * api.config.heartbeatSeconds * 1000 + 1000);
        api.deps.now = () => new Date(later);
        await markSilentNodesDown(api.deps);
        for (const [i, body] of bodies.entries()) {
          if (fleet.nodes[i]?.state === "down") continue;
          await beatPlaced(api, body);
          if (fleet.nodes[i]?.state === "draining")
            expect(
              (await api.client.fleet.nodes[":name"].drain.$post({ param: { name: body.node.name } })).status,
            ).toBe(200);
        }

        const capacity = await (await api.client.capacity.$get()).json();
        const headroom = await (await api.client.headroom.$get()).json();
        const nodes = await (await api.client.fleet.nodes.$get()).json();
        const replicas = await (await api.client.fleet.replicas.$get()).json();
        const stateOf = new Map(nodes.map((n) => [n.name, n.state]));
        for (const [i, body] of bodies.entries())
          expect(stateOf.get(body.node.name)).toBe(fleet.nodes[i]?.state);

        // Capacity's class rows and elsewhere: the replica list, split by its node's state.
        const held = replicas.filter((r) => r.node !== null && r.state !== "failed");
        const onReady = held.filter((r) => stateOf.get(r.node ?? "") === "ready");
        expect(sum(capacity.byClass).replicas).toBe(onReady.length);
        expect(sum(capacity.elsewhere).replicas).toBe(held.length - onReady.length);
        expect(sum(capacity.byClass).memoryGB).toBe(onReady.reduce((s, r) => s + r.memoryGB, 0));

        // The Fleet page's bars add up to the same rows.
        const bars = (ready: boolean) =>
          sum(nodes.filter((n) => (n.state === "ready") === ready).flatMap((n) => n.usage.byClass));
        expect(bars(true)).toEqual(sum(capacity.byClass));
        expect(bars(false)).toEqual(sum(capacity.elsewhere));

        // Totals over ready nodes: used + free = total (nothing here holds more than its node).
        const ready = nodes.filter((n) => n.state === "ready");
        expect(capacity.total.cpuCores).toBe(ready.reduce((s, n) => s + n.cpuCount, 0));
        const overcommitted = ready.some((n) => {
          const here = onReady.filter((r) => r.node === n.name);
          return (
            here.reduce((s, r) => s + r.memoryGB, 0) > n.memoryGB ||
            here.reduce((s, r) => s + r.cpuCores, 0) > n.cpuCount
          );
        });
        if (!overcommitted)
          expect(capacity.free.cpuCores + sum(capacity.byClass).cpuCores).toBe(capacity.total.cpuCores);

        // Each card's running, starting and elsewhere: its replicas in the list.
        for (const room of headroom) {
          const mine = held.filter((r) => r.model === room.model);
          const isReady = (r: (typeof held)[number]) => stateOf.get(r.node ?? "") === "ready";
          expect({ current: room.current, starting: room.starting, elsewhere: room.elsewhere }).toEqual({
            current: mine.filter((r) => r.state === "ready" && isReady(r)).length,
            starting: mine.filter((r) => r.state === "starting" && isReady(r)).length,
            elsewhere: mine.filter((r) => (r.state === "ready" || r.state === "starting") && !isReady(r))
              .length,
          });
        }
      }),
      { numRuns: 10 },
    );
  }, 120_000);
});

import { describe, expect, it } from "vitest";
import { chatAt } from "./autoscale-kit";
import { useControlLoops } from "./control-kit";
import { until, useGateway } from "./gateway-kit";

// SPEC §9 on the wall clock, as `llmgw serve` runs it: the autoscaler's one-second tick, the
// scheduler's loop woken by `model.scaled`, and an agent beating every 50 ms. A window of 2 s
// (`autoscale.scaleDownSeconds`) keeps the test short.

const gw = useGateway({ yaml: "autoscale: { scaleDownSeconds: 2, drainSeconds: 30 }\n" });
const { api } = gw;

const startLoops = useControlLoops(gw);

const chat = (model: string) => chatAt(gw.url, model);

async function view(name: string) {
  return (await api.client.models[":name"].$get({ param: { name } })).json();
}

async function ready(name: string): Promise<number> {
  const all = await (await api.client.fleet.replicas.$get()).json();
  return all.filter((r) => r.model === name && r.state === "ready").length;
}

describe("capacity follows traffic, live", () => {
  it("raises wanted within 2 s of a burst, runs the replicas, and is back at the floor after the window", async () => {
    const agent = await startLoops({ intervalMs: 1_000 });
    const model = await gw.model({ scaling: { min: 1, max: 4, idleTimeoutSeconds: 900, targetInFlight: 2 } });
    await until(async () => (await ready(model.name)) === 1, "the first replica ready", 10_000);

    const release = agent.hold();
    const sent = performance.now();
    const burst = Array.from({ length: 8 }, () => chat(model.name));
    await until(async () => (await view(model.name)).autoscale?.wanted === 4, "wanted 4", 10_000);
    const tookMs = performance.now() - sent;
    expect(tookMs).toBeLessThan(2_000);
    await until(async () => (await ready(model.name)) === 4, "four replicas ready", 10_000);
    release();
    expect((await Promise.all(burst)).map((r) => r.status)).toEqual(Array(8).fill(200));

    await until(async () => (await view(model.name)).autoscale?.wanted === 1, "wanted back to 1", 15_000);
    await until(async () => (await ready(model.name)) === 1, "one replica left", 15_000);
    expect(agent.started.flatMap((e) => e.closedByClient)).toEqual([]);
  }, 60_000);
});

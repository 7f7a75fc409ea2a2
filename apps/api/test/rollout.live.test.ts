import { afterEach, describe, expect, it } from "vitest";
import { type Autoscaler, startAutoscaler } from "../src/autoscale/autoscaler";
import { type Scheduler, startScheduler } from "../src/scheduler";
import { TestAgent } from "./autoscale-kit";
import { type GatewayTest, until, useGateway } from "./gateway-kit";

// SPEC §11.2 on the wall clock, as `llmgw serve` runs it: the scheduler's loop, the autoscaler's
// tick (it sums what each replica holds, so a drain waits for its requests), an agent beating
// every 50 ms, and clients streaming through the `openai` SDK the whole time.

const gw = useGateway();
const { api } = gw;

let running: { autoscaler: Autoscaler; scheduler: Scheduler | null; agents: TestAgent[] } | null = null;

afterEach(async () => {
  for (const agent of running?.agents ?? []) await agent.close();
  await running?.autoscaler.stop();
  await running?.scheduler?.stop();
  running = null;
  api.deps.world.setAutoscale(new Map());
});

async function start(gw: GatewayTest, nodes: { memoryGB: number }[]) {
  const agents = nodes.map(
    (node) =>
      new TestAgent(
        async (body) => (await api.client.agents.heartbeat.$post({ json: body })).json(),
        {
          memoryGB: node.memoryGB,
        },
        { tokensPerSecond: 400, replyTokens: 12 },
      ),
  );
  for (const agent of agents) await agent.beat();
  // As server.ts does: the autoscaler first, handed to the scheduler, whose runs read it.
  const autoscaler = await startAutoscaler(api.deps, api.control, { demand: () => gw.demand() });
  const scheduler = startScheduler(api.deps, api.control, {
    intervalMs: 500,
    debounceMs: 5,
    fleetDebounceMs: 5,
    scale: autoscaler,
  });
  running = { autoscaler, scheduler, agents };
  for (const agent of agents) agent.run(50);
  return agents;
}

async function replicas(name: string) {
  const all = await (await api.client.fleet.replicas.$get()).json();
  return all.filter((r) => r.model === name);
}

/** Clients streaming chat completions one after another until told to stop; every failure kept. */
function streamers(model: string, clients: number) {
  let stop = false;
  const failures: string[] = [];
  let done = 0;
  const openai = gw.client();
  const loops = Array.from({ length: clients }, async () => {
    while (!stop) {
      try {
        const stream = await openai.chat.completions.create({
          model,
          stream: true,
          messages: [{ role: "user", content: "hello" }],
        });
        let text = "";
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
        if (text.length === 0) failures.push("an empty answer");
        done += 1;
      } catch (err) {
        failures.push(String(err));
      }
    }
  });
  return {
    get done() {
      return done;
    },
    async stop() {
      stop = true;
      await Promise.all(loops);
      return failures;
    },
  };
}

async function rollOut(name: string, source: string) {
  const current = await (await api.client.models[":name"].$get({ param: { name } })).json();
  const res = await api.client.models[":name"].$patch(
    { param: { name }, json: { source } },
    { headers: { "If-Match": `"${current.version}"` } },
  );
  expect(res.status).toBe(200);
  return res.json();
}

function rollsOut(title: string, nodes: { memoryGB: number }[], replicasWanted: number) {
  it(title, async () => {
    const agents = await start(gw, nodes);
    const model = await gw.model({
      need: { minMemoryGB: 16 },
      scaling: { min: replicasWanted, max: replicasWanted, idleTimeoutSeconds: 900 },
    });
    await until(
      async () => (await replicas(model.name)).filter((r) => r.state === "ready").length === replicasWanted,
      "the first revision ready",
      15_000,
    );
    const load = streamers(model.name, 6);
    await until(() => load.done >= 6, "requests flowing", 10_000);
    let fewest = replicasWanted;
    const watch = setInterval(async () => {
      const serving = (await replicas(model.name)).filter(
        (r) => r.state === "ready" && r.drainingSince === undefined,
      ).length;
      fewest = Math.min(fewest, serving);
    }, 20);

    const view = await rollOut(model.name, "http://mirror.test/m/v2/m.gguf");
    expect(view).toMatchObject({ revision: 2, rollout: { from: 1, to: 2, state: "rolling" } });
    await until(
      async () =>
        (await api.client.models[":name"].$get({ param: { name: model.name } }).then((r) => r.json())).rollout
          ?.state === "done",
      "the rollout done",
      30_000,
    );
    const sentBefore = load.done;
    await until(() => load.done >= sentBefore + 6, "requests after the rollout", 10_000);
    clearInterval(watch);
    const failures = await load.stop();

    expect(failures).toEqual([]);
    const left = await replicas(model.name);
    expect(left.map((r) => r.revision)).toEqual(Array(replicasWanted).fill(2));
    expect(fewest).toBeGreaterThanOrEqual(replicasWanted - 1);
    // No engine was closed under a request (the drain waited for every one).
    expect(agents.flatMap((a) => a.started.flatMap((e) => e.closedByClient))).toEqual([]);
  }, 90_000);
}

describe("a rollout under streaming load", () => {
  rollsOut("surges beside the old revision and drains it with no failed request", [{ memoryGB: 128 }], 2);
  rollsOut(
    "replaces one at a time on a full fleet, never below wanted − 1",
    [{ memoryGB: 32 }, { memoryGB: 32 }],
    4,
  );
});

import { answer, type Connection, connect } from "@llmgw/client";
import { type Heartbeat, replicasOf, runningText } from "@llmgw/domain";
import { expect } from "@playwright/test";
import { gotoLive, modelInput, segment, test, uniqueName } from "./fixtures";
import { startTokenServer, type TokenServer } from "./tokenServer";

// Issue 18: one definition per number. Running is `ready` replicas on `ready` nodes; starting
// ones and those on draining or down nodes are said apart, never added in.
// 1. On the shared server: a model with a ready and a starting replica on a ready node and a ready
//    one on a draining node: Capacity, Models, Fleet and the API all say "1 running · 1 starting ·
//    1 on a draining or down node", and the Fleet totals agree with the API's /capacity.
// 2. On a server of its own with a 2 s heartbeat interval (liveness-server.ts; the shared one's is
//    10 minutes): the same with a third node that stops beating and goes down, holding a replica.
//    Its fleet is only this test's, so every number is also asserted as a literal.

test("running, starting and on-a-draining-node agree across Capacity, Models, Fleet and the API", async ({
  page,
  api,
}) => {
  const pool = uniqueName("pool");
  const model = await answer(
    api.models.$post({
      json: modelInput({
        scaling: { min: 3, max: 3 },
        profile: { name: "gpu", engine: "vllm", minMemoryGB: 8, cpuCores: 2, nodeSelector: { pool } },
      }),
    }),
  );
  const ready = {
    name: uniqueName("e2e-ready"),
    memoryGB: 64,
    cpuCount: 16,
    engines: ["vllm"],
    labels: { pool },
  };
  const drained = { ...ready, name: uniqueName("e2e-drained") };
  await answer(
    api.agents.heartbeat.$post({
      json: {
        node: ready,
        replicas: [
          { id: `${ready.name}-r1`, model: model.name, state: "ready" },
          { id: `${ready.name}-r2`, model: model.name, state: "starting" },
        ],
      },
    }),
  );
  await answer(
    api.agents.heartbeat.$post({
      json: { node: drained, replicas: [{ id: `${drained.name}-r1`, model: model.name, state: "ready" }] },
    }),
  );
  await answer(api.fleet.nodes[":name"].drain.$post({ param: { name: segment(drained.name) } }));

  // The API: the counts, and the replica list they are counted from.
  const room = await answer(api.models[":name"].headroom.$get({ param: { name: segment(model.name) } }));
  expect({ current: room.current, starting: room.starting, elsewhere: room.elsewhere }).toEqual({
    current: 1,
    starting: 1,
    elsewhere: 1,
  });
  const replicas = (await answer(api.fleet.replicas.$get())).filter((r) => r.model === model.name);
  expect(replicas.map((r) => `${r.node}:${r.state}`).sort()).toEqual(
    [`${ready.name}:ready`, `${ready.name}:starting`, `${drained.name}:ready`].sort(),
  );
  const text = runningText(room, replicasOf(model.scaling));
  expect(text).toBe("1 of 3 running · 1 starting · 1 on a draining or down node");

  // Capacity: the card's count and what it says apart; the totals agree with /capacity.
  await gotoLive(page, "/");
  const card = page.getByTestId(`capacity-card-${model.name}`);
  await expect(card.getByTestId("replicas-current")).toHaveText("1");
  await expect(card.getByTestId("replicas-apart")).toHaveText([
    "· 1 starting",
    "· 1 on a draining or down node",
  ]);
  await expect(page.getByTestId("totals-elsewhere")).toBeVisible();
  // Other tests share the server: read the page and the API until they show the same moment.
  await expect(async () => {
    const capacity = await answer(api.capacity.$get());
    await expect(page.getByTestId("totals-free")).toContainText(`${capacity.free.cpuCores}`, {
      timeout: 500,
    });
    const away = capacity.elsewhere.reduce((s, r) => s + r.replicas, 0);
    await expect(page.getByTestId("totals-elsewhere")).toContainText(
      `${away} replica${away === 1 ? "" : "s"} on draining or down nodes`,
      { timeout: 500 },
    );
  }).toPass({ timeout: 10_000 });

  // Models: the same words.
  await gotoLive(page, `/models?model=${encodeURIComponent(model.name)}`);
  await expect(page.getByTestId(`model-card-${model.name}`).getByTestId("model-running")).toHaveText(text);

  // Fleet: the draining node still lists its replica; the ready one its two.
  await gotoLive(page, "/fleet");
  const drainedCard = page.getByTestId(`node-card-${drained.name}`);
  await expect(drainedCard.getByTestId("node-state")).toHaveText("draining");
  await expect(drainedCard).toContainText("1 replica here");
  await expect(page.getByTestId(`node-card-${ready.name}`)).toContainText("2 replicas here");
});

test.describe("with a node that goes down", () => {
  let server: TokenServer | null = null;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    server = await startTokenServer([], {}, "liveness-server.ts");
  });

  test.afterAll(async () => {
    await server?.stop();
  });

  test("running, starting and on draining or down nodes agree across Capacity, Models, Fleet and the API", async ({
    page,
  }) => {
    test.setTimeout(90_000);
    const url = server?.url ?? "";
    const { api } = connect({ server: url });
    const model = await answer(
      api.models.$post({
        json: modelInput({
          scaling: { min: 4, max: 4 },
          profile: { name: "gpu", engine: "vllm", minMemoryGB: 8, cpuCores: 2 },
        }),
      }),
    );
    const node = (name: string) => ({ name, memoryGB: 64, cpuCount: 16, engines: ["vllm"] });
    const ready: Heartbeat = {
      node: node("e2e-ready"),
      replicas: [
        { id: "ready-r1", model: model.name, state: "ready" },
        { id: "ready-r2", model: model.name, state: "starting" },
      ],
    };
    const drained: Heartbeat = {
      node: node("e2e-drained"),
      replicas: [{ id: "drained-r1", model: model.name, state: "ready" }],
    };
    const silent: Heartbeat = {
      node: { ...node("e2e-down"), memoryGB: 32, cpuCount: 8 },
      replicas: [{ id: "down-r1", model: model.name, state: "ready" }],
    };
    for (const beat of [ready, drained, silent]) await answer(api.agents.heartbeat.$post({ json: beat }));
    await answer(api.fleet.nodes[":name"].drain.$post({ param: { name: segment(drained.node.name) } }));
    // Two agents keep beating, as live ones do; the third has stopped: down after 3 intervals.
    const beating = keepBeating(api, [ready, drained]);
    try {
      await expect.poll(async () => stateOf(api, silent.node.name), { timeout: 20_000 }).toBe("down");
      const nodes = await answer(api.fleet.nodes.$get());
      expect(nodes.map((n) => `${n.name}:${n.state}`).sort()).toEqual([
        "e2e-down:down",
        "e2e-drained:draining",
        "e2e-ready:ready",
      ]);

      // The API: the counts, and the replica list they are counted from.
      const replicas = (await answer(api.fleet.replicas.$get())).filter((r) => r.model === model.name);
      expect(replicas.map((r) => `${r.node}:${r.id}:${r.state}`).sort()).toEqual([
        "e2e-down:down-r1:ready",
        "e2e-drained:drained-r1:ready",
        "e2e-ready:ready-r1:ready",
        "e2e-ready:ready-r2:starting",
      ]);
      const byNode = new Map(nodes.map((n) => [n.name, n.state]));
      const counted = {
        current: replicas.filter((r) => r.state === "ready" && byNode.get(r.node ?? "") === "ready").length,
        starting: replicas.filter((r) => r.state === "starting" && byNode.get(r.node ?? "") === "ready")
          .length,
        elsewhere: replicas.filter((r) => byNode.get(r.node ?? "") !== "ready").length,
      };
      expect(counted).toEqual({ current: 1, starting: 1, elsewhere: 2 });
      const room = await answer(api.models[":name"].headroom.$get({ param: { name: segment(model.name) } }));
      expect({ current: room.current, starting: room.starting, elsewhere: room.elsewhere }).toEqual(counted);
      const list = (await answer(api.headroom.$get())).find((h) => h.model === model.name);
      expect({ current: list?.current, starting: list?.starting, elsewhere: list?.elsewhere }).toEqual(
        counted,
      );
      const text = runningText(room, replicasOf(model.scaling));
      expect(text).toBe("1 of 4 running · 1 starting · 2 on a draining or down node");

      // /capacity: only the ready node's memory and cores are the totals; the ready and the starting
      // replica hold 2 × 8 GB and 2 × 2 cores of it; the draining and the down node's replicas apart.
      const capacity = await answer(api.capacity.$get());
      expect({ total: capacity.total, free: capacity.free }).toEqual({
        total: { memoryGB: 64, cpuCores: 16, gpus: 0 },
        free: { memoryGB: 48, cpuCores: 12, gpus: 0 },
      });
      expect(capacity.byClass.filter((r) => r.replicas > 0)).toEqual([
        { class: "standard", replicas: 2, memoryGB: 16, cpuCores: 4, gpus: 0 },
      ]);
      expect(capacity.elsewhere.filter((r) => r.replicas > 0)).toEqual([
        { class: "standard", replicas: 2, memoryGB: 16, cpuCores: 4, gpus: 0 },
      ]);

      // Capacity: the health line, the card's count and what it says apart, and the totals.
      await gotoLive(page, url);
      await expect(page.getByTestId("health-nodes")).toHaveText("1 node down, 1 draining");
      const card = page.getByTestId(`capacity-card-${model.name}`);
      await expect(card.getByTestId("replicas-current")).toHaveText(String(counted.current));
      await expect(card.getByTestId("replicas-apart")).toHaveText([
        "· 1 starting",
        "· 2 on a draining or down node",
      ]);
      await expect(card.getByTestId("attention-elsewhere")).toHaveText(
        "2 replicas on a draining or down node",
      );
      await expect(page.getByTestId("totals-memoryGB")).toContainText("16 GB used · 48 GB free of 64 GB");
      await expect(page.getByTestId("totals-cpuCores")).toContainText(
        "4 cores used · 12 cores free of 16 cores",
      );
      await expect(page.getByTestId("totals-class-standard")).toHaveText("standard216 GB4");
      await expect(page.getByTestId("totals-elsewhere")).toHaveText(
        "Not counted above: 2 replicas on draining or down nodes hold 16 GB, 4 cores.",
      );

      // Models: the same words.
      await gotoLive(page, `${url}/models?model=${encodeURIComponent(model.name)}`);
      await expect(page.getByTestId(`model-card-${model.name}`).getByTestId("model-running")).toHaveText(
        text,
      );

      // Fleet: each state counted once, and each node with the replicas it reported.
      await gotoLive(page, `${url}/fleet`);
      await expect(page.getByTestId("fleet-states")).toHaveText("1 ready · 1 draining · 1 down");
      const cards = {
        ready: page.getByTestId("node-card-e2e-ready"),
        drained: page.getByTestId("node-card-e2e-drained"),
        down: page.getByTestId("node-card-e2e-down"),
      };
      await expect(cards.ready.getByTestId("node-state")).toHaveText("ready");
      await expect(cards.ready).toContainText("2 replicas here");
      await expect(cards.ready.getByTestId("node-memory")).toContainText("48 GB free of 64 GB");
      await expect(cards.drained.getByTestId("node-state")).toHaveText("draining");
      await expect(cards.drained).toContainText("1 replica here");
      await expect(cards.down.getByTestId("node-state")).toHaveText("down");
      await expect(cards.down).toContainText("1 replica here");
      await page.getByLabel("State").selectOption("down");
      await expect(page.getByTestId("nodes-count")).toHaveText("1 of 3 nodes");
      await expect(cards.down).toBeVisible();
      await expect(cards.ready).toHaveCount(0);
    } finally {
      await beating.stop();
    }
  });
});

async function stateOf(api: Connection["api"], node: string): Promise<string | undefined> {
  return (await answer(api.fleet.nodes.$get())).find((n) => n.name === node)?.state;
}

/** Live agents: each beat posted again every half second until stopped (down takes 6 s of silence). */
function keepBeating(api: Connection["api"], beats: Heartbeat[]): { stop(): Promise<void> } {
  let last: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    last = Promise.all(beats.map((json) => answer(api.agents.heartbeat.$post({ json })))).catch(
      (err: unknown) => console.warn("a beat failed", err),
    );
  }, 500);
  return {
    async stop() {
      clearInterval(timer);
      await last;
    },
  };
}

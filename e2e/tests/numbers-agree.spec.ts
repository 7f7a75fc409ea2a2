import { answer } from "@llmgw/client";
import { replicasOf, runningText } from "@llmgw/domain";
import { expect } from "@playwright/test";
import { gotoLive, modelInput, segment, test, uniqueName } from "./fixtures";

// Issue 18: one definition per number. A model with a ready and a starting replica on a ready
// node and a ready one on a draining node: Capacity, Models, Fleet and the API all say
// "1 running · 1 starting · 1 on a draining or down node", and the Fleet totals agree with the
// API's /capacity, the draining node's replica said apart from them. (Down nodes take 3 heartbeat
// intervals, 30 minutes on the shared server: the domain's property test covers them.)

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

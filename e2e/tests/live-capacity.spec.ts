import { answer } from "@llmgw/client";
import { expect } from "@playwright/test";
import { gotoLive, modelInput, segment, test, uniqueName } from "./fixtures";

test("a heartbeat moves a capacity card within a second, without a reload", async ({ page, api }) => {
  // The model runs only on nodes with this test's own label, so no other test's fleet counts; and
  // the node offers only vLLM, so no llama.cpp model of the seed or another test is placed on it.
  const pool = uniqueName("pool");
  const node = uniqueName("e2e-node");
  const model = await answer(
    api.models.$post({
      json: modelInput({
        profile: { name: "gpu", engine: "vllm", minMemoryGB: 8, cpuCores: 2, nodeSelector: { pool } },
      }),
    }),
  );
  expect(
    (await answer(api.models[":name"].headroom.$get({ param: { name: segment(model.name) } }))).free,
  ).toBe(0);

  await gotoLive(page, "/");
  const free = page.getByTestId(`capacity-card-${model.name}`).getByTestId("headroom-free");
  await expect(free).toHaveText("+0 now");
  let navigations = 0;
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) navigations += 1;
  });

  // A new node with the label: 64 GB and 16 cores hold eight replicas of 8 GB and 2 cores.
  const beat = { name: node, memoryGB: 64, cpuCount: 16, engines: ["vllm"], labels: { pool } };
  let posted = Date.now();
  await answer(api.agents.heartbeat.$post({ json: { node: beat, replicas: [] } }));
  await expect(free).toHaveText("+8 now", { timeout: 1000 });
  const joined = Date.now() - posted;

  // The agent now reports two of its replicas there: six places are left.
  posted = Date.now();
  await answer(
    api.agents.heartbeat.$post({
      json: {
        node: beat,
        replicas: [
          { id: `${node}-r1`, model: model.name, state: "ready" },
          { id: `${node}-r2`, model: model.name, state: "starting" },
        ],
      },
    }),
  );
  await expect(free).toHaveText("+6 now", { timeout: 1000 });
  const started = Date.now() - posted;
  // Running is the ready one; the starting one is said apart, not added in.
  const card = page.getByTestId(`capacity-card-${model.name}`);
  await expect(card.getByTestId("replicas-current")).toHaveText("1");
  await expect(card.getByTestId("replicas-apart")).toHaveText("· 1 starting");

  expect(navigations).toBe(0);
  expect(
    (await answer(api.models[":name"].headroom.$get({ param: { name: segment(model.name) } }))).free,
  ).toBe(6);
  test.info().annotations.push({
    type: "latency",
    description: `node joined → card ${joined} ms; replicas started → card ${started} ms`,
  });
});

test("another model's class change moves a capacity card within a second: what it may preempt, said alike on Quotas", async ({
  page,
  api,
}) => {
  const pool = uniqueName("pool");
  const node = uniqueName("e2e-node");
  const profile = { name: "gpu", engine: "vllm", minMemoryGB: 16, cpuCores: 4, nodeSelector: { pool } };
  const victim = await answer(api.models.$post({ json: modelInput({ class: "standard", profile }) }));
  const other = await answer(api.models.$post({ json: modelInput({ class: "standard", profile }) }));
  // The node is full of the victim's replicas; the other model, of the same class, may not take them.
  await answer(
    api.agents.heartbeat.$post({
      json: {
        node: { name: node, memoryGB: 32, cpuCount: 8, engines: ["vllm"], labels: { pool } },
        replicas: [
          { id: `${node}-r1`, model: victim.name, state: "ready" },
          { id: `${node}-r2`, model: victim.name, state: "ready" },
        ],
      },
    }),
  );
  await gotoLive(page, "/");
  const card = page.getByTestId(`capacity-card-${other.name}`);
  await expect(card.getByTestId("headroom-free")).toHaveText("+0 now");
  await expect(card.getByTestId("headroom-preempt")).toHaveText("+0 by preemption");
  await expect(card.getByTestId("headroom-total")).toContainText("No more replicas can start");
  await expect(card.getByTestId("headroom-only-preempting")).toHaveCount(0);

  // Somebody else makes the victim a batch model: the other now outranks its replicas.
  await answer(
    api.models[":name"].$patch(
      { param: { name: segment(victim.name) }, json: { class: "batch" } },
      { headers: { "If-Match": `"${victim.version}"` } },
    ),
  );
  await expect(card.getByTestId("headroom-preempt")).toHaveText(/^\+2 by preempting batch ×\d+$/, {
    timeout: 1000,
  });
  // It fits only by preempting: the card says so beside the big number, which counts those two.
  await expect(card.getByTestId("headroom-only-preempting")).toBeVisible();
  await expect(card.getByTestId("headroom-total")).toContainText("+2 more can start");
  expect(
    (await answer(api.models[":name"].headroom.$get({ param: { name: segment(other.name) } }))).byPreemption,
  ).toBe(2);

  // The Quotas page's headroom table says it in the card's words, not columns of its own.
  const preempt = (await card.getByTestId("headroom-preempt").textContent()) ?? "";
  await gotoLive(page, "/quotas");
  const row = page.getByTestId(`headroom-row-${other.name}`);
  await expect(row.getByTestId("headroom-total")).toContainText("+2 more can start");
  await expect(row.getByTestId("headroom-only-preempting")).toBeVisible();
  await expect(row.getByTestId("headroom-free")).toHaveText("+0 now");
  await expect(row.getByTestId("headroom-preempt")).toHaveText(preempt);
  await expect(row.getByTestId("headroom-running")).toHaveText("0 running");
  await expect(row.getByTestId("headroom-quota")).toHaveText("no limit");
  await expect(page.getByTestId("headroom-table").locator("thead")).toHaveText(
    "ModelRunningCan startQuota leftLimited by",
  );
});

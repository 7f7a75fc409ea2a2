import { answer } from "@llmgw/client";
import { expect } from "@playwright/test";
import { gotoLive, modelInput, ownerWithQuota, segment, test, uniqueName } from "./fixtures";

// Issue 18, item 2: trouble is visible on Capacity, and each part of the health line leads to the
// list filtered to it. Names share a prefix of this test's own, so a search shows only its models.

test("a model short of its replicas is marked, counted in the health line, and found by its link", async ({
  page,
  api,
}) => {
  const base = uniqueName("attn");
  // Nothing carries its pool, so the always-on one runs 0 of the 1 it wants; the other wants none.
  const profile = { nodeSelector: { pool: base } };
  const short = await answer(
    api.models.$post({ json: modelInput({ name: `${base}-short`, scaling: { min: 1, max: 1 }, profile }) }),
  );
  const fine = await answer(api.models.$post({ json: modelInput({ name: `${base}-fine`, profile }) }));

  await gotoLive(page, "/");
  const shortCard = page.getByTestId(`capacity-card-${short.name}`);
  await expect(shortCard.getByTestId("attention-short")).toHaveText("1 replica short of wanted");
  await expect(page.getByTestId(`capacity-card-${fine.name}`).getByTestId("card-attention")).toHaveCount(0);
  // Why not, grouped by cause in a sentence, not a line per node (item 7).
  await expect(shortCard.getByTestId("why-not-selector")).toHaveText(
    /^\d+ nodes? do(es)? not match the node selector \(e\.g\. .+\)$/,
  );
  const health = page.getByTestId("health-line");
  await expect(health.getByTestId("health-models")).toContainText("short of wanted");
  // The e2e server runs without a scheduler: the page says nothing will fill the model.
  await expect(health.getByTestId("health-scheduler")).toHaveText(
    "scheduler off: only agents start replicas",
  );

  // The board's own filter, kept in the address.
  await page.getByLabel("Search", { exact: true }).fill(base);
  await expect(page.getByTestId("capacity-count")).toHaveText(/^2 of \d+ models$/);
  await page.getByLabel("Needs attention only").check();
  await expect(page).toHaveURL(/[?&]attention=1/);
  await expect(page.getByTestId("capacity-count")).toHaveText(/^1 of \d+ models$/);
  await expect(shortCard).toBeVisible();
  await expect(page.getByTestId(`capacity-card-${fine.name}`)).toHaveCount(0);

  // The health line's link opens Models filtered to what needs attention.
  await health.getByRole("link", { name: /need.* attention/ }).click();
  await expect(page).toHaveURL(/\/models\?attention=1$/);
  await expect(page.getByLabel("Needs attention only")).toBeChecked();
  await page.getByLabel("Search", { exact: true }).fill(base);
  await expect(page.getByTestId(`model-card-${short.name}`)).toBeVisible();
  await expect(page.getByTestId(`model-card-${fine.name}`)).toHaveCount(0);
  await page.getByLabel("Needs attention only").uncheck();
  await expect(page.getByTestId(`model-card-${fine.name}`)).toBeVisible();
});

test("a draining node is counted in the health line, and its link filters the fleet by state", async ({
  page,
  api,
}) => {
  const base = uniqueName("attn-node");
  const beat = (name: string) =>
    api.agents.heartbeat.$post({
      json: {
        node: { name, memoryGB: 16, cpuCount: 4, engines: ["vllm"], labels: { pool: base } },
        replicas: [],
      },
    });
  await answer(beat(`${base}-a`));
  await answer(beat(`${base}-b`));
  await answer(api.fleet.nodes[":name"].drain.$post({ param: { name: segment(`${base}-b`) } }));
  // A model of its own, so the page shows its board and health line whatever else there is.
  await answer(api.models.$post({ json: modelInput() }));

  await gotoLive(page, "/");
  const nodes = page.getByTestId("health-line").getByTestId("health-nodes");
  await nodes.getByRole("link", { name: /draining/ }).click();
  await expect(page).toHaveURL(/\/fleet\?state=draining$/);
  await expect(page.getByLabel("State")).toHaveValue("draining");
  await expect(page.getByTestId("fleet-states")).toContainText(/\d+ draining/);
  await page.getByLabel("Search", { exact: true }).fill(base);
  await expect(page.getByTestId("nodes-count")).toHaveText(/^1 of \d+ nodes$/);
  await expect(page.getByTestId("node-list")).toContainText(`${base}-b`);
  await expect(page.getByTestId("node-list")).not.toContainText(`${base}-a`);

  // Needs attention alone (any state) still leaves the ready node out.
  await page.getByLabel("State").selectOption("");
  await page.getByLabel("Needs attention only").check();
  await expect(page).toHaveURL(/\/fleet\?attention=1$/);
  await expect(page.getByTestId("nodes-count")).toHaveText(/^1 of \d+ nodes$/);

  // Every node again, the draining one first though its name sorts after the ready one's.
  await page.getByLabel("Needs attention only").uncheck();
  await page.getByLabel("Search", { exact: true }).fill(base);
  const names = page.getByTestId("node-list").locator("[data-testid^=node-card-]");
  await expect(names).toHaveCount(2);
  await expect(names.first()).toHaveAttribute("data-testid", `node-card-${base}-a`);
  await page.getByLabel("Sort by").selectOption("attention");
  await expect(page).toHaveURL(/[?&]order=attention/);
  await expect(names.first()).toHaveAttribute("data-testid", `node-card-${base}-b`);
});

test("a model whose owner is over quota needs attention on Models as on Capacity", async ({ page, api }) => {
  const base = uniqueName("attn-quota");
  const limits = { memoryGB: 64, cpuCores: null, gpus: null, replicas: null };
  const owner = await ownerWithQuota(api, limits);
  const scaling = { min: 1, max: 1 };
  const over = await answer(api.models.$post({ json: modelInput({ name: `${base}-over`, owner, scaling }) }));
  const fine = await answer(api.models.$post({ json: modelInput({ name: `${base}-fine`, scaling }) }));
  await answer(
    api.agents.heartbeat.$post({
      json: {
        node: { name: `${base}-node`, memoryGB: 64, cpuCount: 16, engines: ["llamacpp"] },
        replicas: [
          { id: `${base}-over-1`, model: over.name, state: "ready" },
          { id: `${base}-fine-1`, model: fine.name, state: "ready" },
        ],
      },
    }),
  );
  // A limit lowered below what the owner's one replica already holds.
  const quota = await answer(
    api.quotas[":owner"].$put({ param: { owner: segment(owner) }, json: { ...limits, memoryGB: 1 } }),
  );
  expect(quota.used.memoryGB).toBe(8);

  // Capacity marks it with its owner's quota, and leaves the other one unmarked.
  await gotoLive(page, "/");
  await expect(page.getByTestId(`capacity-card-${over.name}`).getByTestId("attention-over-quota")).toHaveText(
    `${owner} is over its quota: memory GB 8 of 1`,
  );
  await expect(page.getByTestId(`capacity-card-${fine.name}`).getByTestId("card-attention")).toHaveCount(0);

  // Models: the same model, and only it, needs attention.
  await gotoLive(page, "/models?attention=1");
  await page.getByLabel("Search", { exact: true }).fill(base);
  await expect(page.getByTestId("models-count")).toHaveText(/^1 of \d+ models$/);
  await expect(page.getByTestId(`model-card-${over.name}`)).toBeVisible();
  await expect(page.getByTestId(`model-card-${fine.name}`)).toHaveCount(0);

  // And first when ordered by attention, though its name sorts after the other's.
  await page.getByLabel("Needs attention only").uncheck();
  await page.getByLabel("Sort by").selectOption("attention");
  const cards = page.getByTestId("model-list").locator("[data-testid^=model-card-]");
  await expect(cards).toHaveCount(2);
  await expect(cards.first()).toHaveAttribute("data-testid", `model-card-${over.name}`);
});

import { answer } from "@llmgw/client";
import { expect } from "@playwright/test";
import { gotoLive, modelInput, openModelCard, segment, test, uniqueName } from "./fixtures";

test("an operator drains a node from Fleet in two clicks, and resumes it", async ({ page, api }) => {
  // A node of this test's own, offering no engine the others' models use.
  const node = { name: uniqueName("drain-node"), memoryGB: 16, cpuCount: 4, engines: ["vllm"] };
  await answer(api.agents.heartbeat.$post({ json: { node, replicas: [] } }));

  await gotoLive(page, "/fleet");
  const card = page.getByTestId(`node-card-${node.name}`);
  await expect(card.getByTestId("node-state")).toHaveText("ready");
  await card.getByTestId("node-drain").click();
  await card.getByTestId("node-drain-confirm").click();
  await expect(card.getByTestId("node-state")).toHaveText("draining");
  const nodes = await answer(api.fleet.nodes.$get());
  expect(nodes.find((n) => n.name === node.name)?.state).toBe("draining");

  await card.getByTestId("node-resume").click();
  await expect(card.getByTestId("node-state")).toHaveText("ready");
  await expect(card.getByTestId("node-drain")).toBeVisible();
});

test("an on-demand model's card wakes it; an always-on one has no wake button", async ({ page, api }) => {
  const sleeper = await answer(api.models.$post({ json: modelInput({ scaling: { min: 0, max: 1 } }) }));
  const card = await openModelCard(page, sleeper.name);
  const woken = page.waitForResponse(
    (res) =>
      res.request().method() === "POST" &&
      new URL(res.url()).pathname === `/api/v1/models/${segment(sleeper.name)}/wake`,
  );
  await card.getByTestId("model-wake").click();
  expect((await woken).status()).toBe(202);
  await expect(card.getByTestId("model-woken")).toHaveText("Woken: a replica is wanted until it goes idle");

  const always = await answer(api.models.$post({ json: modelInput({ scaling: { min: 1, max: 1 } }) }));
  const other = await openModelCard(page, always.name);
  await expect(other.getByTestId("field-mode").getByLabel("Mode", { exact: true })).toHaveValue("always");
  await expect(other.getByTestId("model-wake")).toHaveCount(0);
});

import { answer } from "@llmgw/client";
import { expect } from "@playwright/test";
import { modelInput, segment, test } from "./fixtures";

test("the dashboard loads from the API's port and its capacity board shows what the API says", async ({
  page,
  api,
}, testInfo) => {
  // Each project's server runs on the store the project is named after.
  expect(await (await page.request.get("/healthz")).json()).toEqual({
    ok: true,
    store: testInfo.project.name,
  });
  const model = await answer(api.models.$post({ json: modelInput() }));
  const headroom = await answer(api.models[":name"].headroom.$get({ param: { name: segment(model.name) } }));

  await page.goto("/");
  await expect(page).toHaveTitle("Capacity · llmgw");
  await expect(page.getByTestId("capacity-card-chat-critical")).toBeVisible();
  // The board draws only the cards near the view: the search brings this one there.
  await page.getByLabel("Search", { exact: true }).fill(model.name);
  const card = page.getByTestId(`capacity-card-${model.name}`);
  await expect(card.getByRole("heading", { level: 2 })).toHaveText(model.name);
  await expect(card.getByTestId("model-class")).toHaveText(model.class);
  // modelInput's model is stopped: it holds nothing, and wants nothing.
  await expect(card.getByTestId("model-mode")).toHaveText("stopped");
  await expect(card.getByTestId("replicas-current")).toHaveText(String(headroom.current));
  await expect(card.getByTestId("replicas-wanted")).toHaveText("0");
  await expect(card.getByTestId("headroom-free")).toHaveText(`+${headroom.free ?? 0} now`);
  await expect(card.getByTestId("headroom-quota")).toHaveText("no limit");
});

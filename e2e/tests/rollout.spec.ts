import { answer } from "@llmgw/client";
import { makeTraffic } from "@llmgw/domain/testing";
import { expect } from "@playwright/test";
import { gotoLive, modelInput, openModelCard, segment, test } from "./fixtures";

// SPEC §11.5 in the browser: a canary on the model's card (both revisions, their shares, Promote),
// and "roll out this version" for a mirrored version of a model that exists, from the wizard and
// from the Mirror page (one component, two places: each is tried where it is).

test("the card shows a held canary's two revisions and shares, and Promote goes on with the rollout", async ({
  page,
  api,
}) => {
  const model = await answer(api.models.$post({ json: modelInput() }));
  await answer(
    api.models[":name"].$patch(
      {
        param: { name: segment(model.name) },
        json: { source: "http://127.0.0.1/mirror/e2e/v2/e2e.gguf", rollout: { canaryPercent: 20 } },
      },
      { headers: { "If-Match": `"${model.version}"` } },
    ),
  );

  const card = await openModelCard(page, model.name);
  const rollout = card.getByTestId("model-rollout");
  await expect(rollout.getByTestId("rollout-state")).toHaveText(
    "Rollout revision 1 → 2: canary held (20 % of requests)",
  );
  await expect(rollout.getByTestId("rollout-old")).toContainText("1 (old)");
  await expect(rollout.getByTestId("rollout-old")).toContainText("80 %");
  await expect(rollout.getByTestId("rollout-new")).toContainText("2 (new)");
  await expect(rollout.getByTestId("rollout-new")).toContainText("20 %");
  await expect(rollout.getByTestId("rollout-abort")).toBeVisible();

  await rollout.getByTestId("rollout-promote").click();
  await expect(rollout.getByTestId("rollout-state")).toHaveText("Rollout revision 1 → 2: rolling out");
  await expect(rollout.getByTestId("rollout-promote")).toHaveCount(0);
  const stored = await answer(api.models[":name"].$get({ param: { name: segment(model.name) } }));
  expect(stored.rollout?.state).toBe("rolling");
});

test("the wizard rolls a mirrored version out to the model of that name", async ({ page, api }) => {
  const name = "llama-3.1-8b-instruct";
  await answer(api.models.$post({ json: modelInput({ name }) }));
  try {
    await page.goto("/serve");
    const wizard = page.getByTestId("serve-wizard");
    await wizard.getByTestId("serve-version-llama-3.1-8b-instruct-Q4_K_M").getByRole("radio").check();
    await wizard.getByTestId("serve-next").click();
    const plan = wizard.getByTestId("serve-plan");
    await expect(plan.getByTestId("plan-already")).toContainText("roll this version out to it");

    await plan.getByTestId("rollout-version-start").click();

    await expect(plan.getByTestId("rollout-version-started")).toHaveText("Rolling out revision 1 → 2");
    const model = await answer(api.models[":name"].$get({ param: { name } }));
    expect(model.source).toContain("/mirror/llama-3.1-8b-instruct/Q4_K_M/");
    expect(model.rollout).toMatchObject({ from: 1, to: 2, state: "rolling" });
  } finally {
    await api.models[":name"].$delete({ param: { name } });
  }
});

test("the Mirror page rolls a mirrored version out to the model of that name, followed on its card", async ({
  page,
  api,
}) => {
  const name = "llama-3.1-8b-instruct";
  await answer(api.models.$post({ json: modelInput({ name }) }));
  try {
    await page.goto("/mirror");
    const version = page.getByTestId("mirror-version-llama-3.1-8b-instruct-Q4_K_M");
    await expect(version).toContainText("already in the catalogue");
    const start = version.getByTestId("rollout-version-start");
    await expect(start).toHaveText(`Roll out this version to ${name}`);

    await start.click();

    await expect(version.getByTestId("rollout-version-started")).toHaveText("Rolling out revision 1 → 2");
    await expect(start).toBeDisabled();
    const model = await answer(api.models[":name"].$get({ param: { name } }));
    expect(model.source).toContain("/mirror/llama-3.1-8b-instruct/Q4_K_M/");
    expect(model).toMatchObject({ revision: 2, rollout: { from: 1, to: 2, state: "rolling" } });

    await version.getByTestId("rollout-version-card").click();
    const card = page.getByTestId(`model-card-${name}`);
    await expect(card.getByTestId("model-rollout").getByTestId("rollout-state")).toHaveText(
      "Rollout revision 1 → 2: rolling out",
    );
  } finally {
    await api.models[":name"].$delete({ param: { name } });
  }
});

test("the card's requests chart marks where a rollout began and where it ended", async ({ page, api }) => {
  const model = await answer(api.models.$post({ json: modelInput() }));
  await answer(
    api.models[":name"].$patch(
      {
        param: { name: segment(model.name) },
        json: { source: "http://127.0.0.1/mirror/e2e/v3/e2e.gguf", rollout: { canaryPercent: 20 } },
      },
      { headers: { "If-Match": `"${model.version}"` } },
    ),
  );
  // The card's chart draws once the model has traffic: the gateway's events, stood in for.
  const body = ["retry: 600000\n\n", ...[2, 3].map((rps) => trafficEvent(model.name, rps))].join("");
  await page.route("**/api/v1/events*", (route) =>
    route.fulfill({ status: 200, headers: { "Content-Type": "text/event-stream" }, body }),
  );

  await gotoLive(page, "/");
  await expect(page.getByTestId(`capacity-card-${model.name}`).getByTestId("traffic-chart")).toBeVisible();
  const card = await openModelCard(page, model.name);
  const marks = card.getByTestId("traffic-rollout");
  await expect(marks).toHaveText(/^Rollout to revision 2 began (now|\d+ s ago)\.$/);
  await expect(
    card.getByRole("img", { name: /Rollout to revision 2 began/ }).locator("canvas"),
  ).toBeVisible();

  // Aborted, the rollout ends: the card marks its end too.
  await answer(
    api.models[":name"].rollout.$post({ param: { name: segment(model.name) }, json: { action: "abort" } }),
  );
  await gotoLive(page, "/");
  await expect(page.getByTestId(`capacity-card-${model.name}`).getByTestId("traffic-chart")).toBeVisible();
  const again = await openModelCard(page, model.name);
  await expect(again.getByTestId("traffic-rollout")).toHaveText(
    /^Rollout to revision 2 began (now|\d+ s ago); rolled back (now|\d+ s ago)\.$/,
  );
});

function trafficEvent(model: string, requestsPerSecond: number): string {
  return `event: model.traffic\ndata: ${JSON.stringify(makeTraffic({ model, requestsPerSecond }))}\n\n`;
}

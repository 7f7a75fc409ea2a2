import { answer, segment } from "@llmgw/client";
import { StandInEngine } from "@llmgw/simulation";
import { expect } from "@playwright/test";
import OpenAI from "openai";
import { gotoLive, modelInput, modelServedAt, test } from "./fixtures";

// SPEC §7.7: the server keeps each model's last 10 minutes of traffic, so a Capacity page opened
// after a model served requests draws them, and never says "no traffic" about a time it did not see.

test("a page opened after the traffic draws it from the server's history, not 'No traffic'", async ({
  page,
  api,
  baseURL,
}) => {
  const engine = await StandInEngine.start({ tokensPerSecond: 1000, replyTokens: 4 });
  try {
    const model = await modelServedAt(api, engine.url);

    // As a new user would: 8 chat completions, and only then the Capacity page.
    const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: "unused", maxRetries: 0 });
    for (let i = 0; i < 8; i++) {
      await client.chat.completions.create({
        model: model.name,
        messages: [{ role: "user", content: `hi ${i}` }],
      });
    }
    const param = { name: segment(model.name) };
    await expect
      .poll(async () => {
        const history = await answer(api.models[":name"].traffic.$get({ param }));
        return history.seconds.reduce((sum, s) => sum + s.requestsPerSecond, 0);
      })
      .toBeGreaterThan(0);

    await gotoLive(page, "/");
    const card = page.getByTestId(`capacity-card-${model.name}`);
    const chart = card.getByRole("img", {
      name: /^Requests per second over the last 5 minutes: .*peak [1-9]/,
    });
    await expect(chart).toBeVisible();
    await expect(chart.locator("canvas")).toBeVisible();
    await expect(card.getByTestId("traffic-none")).toHaveCount(0);
  } finally {
    await engine.close();
  }
});

test("a card that cannot read the history says since when it knows, not 'No traffic in the last 5 minutes'", async ({
  page,
  api,
}) => {
  const model = await answer(api.models.$post({ json: modelInput() }));
  await page.route("**/api/v1/models/*/traffic", (route) =>
    route.fulfill({
      status: 503,
      contentType: "application/json",
      body: JSON.stringify({ error: { code: "unavailable", message: "not now" } }),
    }),
  );
  await gotoLive(page, "/");
  const none = page.getByTestId(`capacity-card-${model.name}`).getByTestId("traffic-none");
  await expect(none).toContainText(
    "before that is not known: the server's traffic history could not be read",
  );
  await expect(none).not.toContainText("in the last 5 minutes");
});

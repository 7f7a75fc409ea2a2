import { answer } from "@llmgw/client";
import type { ModelView } from "@llmgw/domain";
import { expect } from "@playwright/test";
import { isPatchOf, modelInput, openModelCard, segment, test } from "./fixtures";

test("two operators edit one card: the later save gets the conflict, sees who changed what, and re-applies without losing the other's change", async ({
  browser,
  api,
}) => {
  const model = await answer(
    api.models.$post({ json: modelInput({ class: "standard", profile: { minMemoryGB: 8, cpuCores: 2 } }) }),
  );
  const first = await browser.newContext();
  const second = await browser.newContext();
  try {
    const firstPage = await first.newPage();
    const secondPage = await second.newPage();
    const firstCard = await openModelCard(firstPage, model.name);
    const secondCard = await openModelCard(secondPage, model.name);

    // The second operator starts editing from version 1: class and memory.
    await secondCard.getByLabel("Class", { exact: true }).selectOption("batch");
    await secondCard.getByLabel("Memory (GB)", { exact: true }).fill("12");

    // Meanwhile the first saves class and owner.
    const firstOwner = `${model.owner}-moved`;
    await firstCard.getByLabel("Class", { exact: true }).selectOption("critical");
    await firstCard.getByLabel("Owner", { exact: true }).fill(firstOwner);
    await firstCard.getByTestId("model-save").click();
    await expect(firstCard.getByTestId("model-saved")).toHaveText("Saved");
    // The second card follows the untouched field live, and keeps its own edits.
    await expect(secondCard.getByLabel("Owner", { exact: true })).toHaveValue(firstOwner);
    await expect(secondCard.getByLabel("Class", { exact: true })).toHaveValue("batch");

    // The second save is stale: 412, and the card says what changed meanwhile and by whom.
    const stale = secondPage.waitForResponse((res) => isPatchOf(model.name)(res.request()));
    await secondCard.getByTestId("model-save").click();
    const refused = await stale;
    expect(refused.status()).toBe(412);
    expect(await refused.request().headerValue("if-match")).toBe(`"${model.version}"`);
    const body = (await refused.json()) as { current: ModelView; changedSince: { by: string }[] };
    const conflict = secondCard.getByTestId("model-conflict");
    await expect(conflict).toBeVisible();
    const changes = conflict.getByTestId("conflict-changes").getByRole("listitem");
    await expect(changes).toHaveCount(2);
    await expect(changes.filter({ hasText: "class from standard to critical" })).toHaveCount(1);
    await expect(changes.filter({ hasText: `owner from ${model.owner} to ${firstOwner}` })).toHaveCount(1);
    // Who: the server's actor for the first operator's request ("local" without tokens).
    const who = body.changedSince[0]?.by ?? "";
    expect(who).not.toBe("");
    for (const change of await changes.all()) await expect(change.locator("strong")).toHaveText(who);
    await expect(conflict.getByTestId("conflict-mine")).toHaveText("Class → batch, Memory (GB) → 12");

    // Re-applying sends the same edit against the version that is there now.
    const reapplied = secondPage.waitForRequest(isPatchOf(model.name));
    await conflict.getByRole("button", { name: "Re-apply my changes" }).click();
    const request2 = await reapplied;
    expect(request2.postDataJSON()).toEqual({ class: "batch", memoryGB: 12 });
    expect(await request2.headerValue("if-match")).toBe(`"${body.current.version}"`);
    await expect(conflict).toHaveCount(0);
    await expect(secondCard.getByTestId("model-saved")).toHaveText("Saved");

    // The second operator's values win where both edited; the first's owner is kept.
    const final = await answer(api.models[":name"].$get({ param: { name: segment(model.name) } }));
    expect(final.class).toBe("batch");
    expect(final.profiles[0]?.minMemoryGB).toBe(12);
    expect(final.owner).toBe(firstOwner);
    expect(final.version).toBe(body.current.version + 1);
    // And the first operator's page shows the result live.
    await expect(firstCard.getByLabel("Class", { exact: true })).toHaveValue("batch");
    await expect(firstCard.getByLabel("Memory (GB)", { exact: true })).toHaveValue("12");
  } finally {
    await first.close();
    await second.close();
  }
});

import { answer, segment } from "@llmgw/client";
import { StandInEngine } from "@llmgw/simulation";
import { expect } from "@playwright/test";
import { modelServedAt, openModelCard, test } from "./fixtures";

// SPEC §5 on the model card: "Measure" benches the model through the server's own gateway (to a
// stand-in engine on loopback, reported ready as an agent would), a bar while it runs, then the
// last bench beside the estimate and tokens/s against concurrency.

test("Measure benches the model: a bar while it runs, then the figures beside the estimate and a chart", async ({
  page,
  api,
}) => {
  const engine = await StandInEngine.start({ tokensPerSecond: 1000, replyTokens: 8, forgetful: true });
  try {
    const model = await modelServedAt(api, engine.url, { measuredMemoryGB: 5.2 });

    const card = await openModelCard(page, model.name);
    await expect(card.getByTestId("bench-none")).toBeVisible();

    const release = engine.hold();
    await card.getByTestId("bench-start").click();
    const bar = card.getByRole("progressbar", { name: `Bench of ${model.name}` });
    await expect(bar).toHaveAttribute("max", "96");
    await expect(card.getByTestId("bench-progress")).toContainText(
      "measuring at 1 concurrent: 0 / 96 requests",
    );
    await expect(card.getByTestId("bench-start")).toBeDisabled();
    // One bench per model at a time.
    const refused = await api.models[":name"].bench.$post({ param: { name: segment(model.name) }, json: {} });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: "bench_running" } });

    release();
    const line = card.getByTestId("bench-line");
    await expect(line).toHaveText(
      /^measured \d+(\.\d)? tok\/s at (1|4|16) concurrent · first token \d+ ms · 5\.2 GB measured \(estimate 6 GB\)$/,
      { timeout: 30_000 },
    );
    await expect(card.getByTestId("bench-progress")).toHaveCount(0);
    await expect(card.getByTestId("bench-start")).toBeEnabled();
    const chart = card.getByRole("img", {
      name: /^Output tokens per second by concurrency: .+ at 1, .+ at 4, .+ at 16\.$/,
    });
    await expect(chart.locator("canvas")).toBeVisible();

    const stored = await answer(api.models[":name"].$get({ param: { name: segment(model.name) } }));
    expect(stored.bench?.runs.map((r) => [r.concurrency, r.requests])).toEqual([
      [1, 32],
      [4, 32],
      [16, 32],
    ]);
    expect(stored.bench?.by).toBe("local");

    // The audit log says the stored bench in the card's words (the estimate aside), not "bench" alone.
    const said = (await line.textContent()) ?? "";
    await page.goto(`/audit?model=${encodeURIComponent(model.name)}`);
    await expect(page.getByTestId("audit-bench").locator("summary")).toHaveText(
      said.replace(" (estimate 6 GB)", ""),
    );
  } finally {
    await engine.close();
  }
});

import { answer } from "@llmgw/client";
import { StandInEngine } from "@llmgw/simulation";
import { expect, type Locator, type Page } from "@playwright/test";
import OpenAI from "openai";
import { gotoLive, modelServedAt, test } from "./fixtures";

// SPEC §12.2, the Usage page: real requests through the gateway to a stand-in engine, drawn
// within seconds as a stacked chart and summed in the table, which equals GET /usage; the key and
// the period live in the address.

/** Pixels of the chart's canvas that some series painted (the palette's colours, see colors.ts). */
async function paintedPixels(chart: Locator): Promise<number> {
  return chart.locator("canvas").evaluate((canvas: HTMLCanvasElement) => {
    const palette = [
      "#0072b2",
      "#e69f00",
      "#009e73",
      "#cc79a7",
      "#56b4e9",
      "#d55e00",
      "#f0e442",
      "#7f7f7f",
    ].map((hex) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)));
    const context = canvas.getContext("2d");
    if (!context) return 0;
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let painted = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b] = [data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0];
      if (
        palette.some(
          ([pr = 0, pg = 0, pb = 0]) => Math.abs(r - pr) + Math.abs(g - pg) + Math.abs(b - pb) < 12,
        )
      )
        painted++;
    }
    return painted;
  });
}

/** The table's rows as the page shows them: key → [requests, prompt tokens, completion tokens]. */
async function tableRows(page: Page): Promise<Record<string, number[]>> {
  return page.getByTestId("usage-row").evaluateAll((rows) =>
    Object.fromEntries(
      rows.map((row) => {
        const cells = [...row.querySelectorAll("td")].map((td) =>
          Number((td.textContent ?? "").replaceAll(",", "")),
        );
        return [row.getAttribute("data-key") ?? "", [cells[0] ?? -1, cells[3] ?? -1, cells[5] ?? -1]];
      }),
    ),
  );
}

test("the Usage page draws the demo's traffic within seconds, its table equals the API, and the key is in the address", async ({
  page,
  api,
  baseURL,
}) => {
  const engine = await StandInEngine.start({ replyTokens: 12, tokensPerSecond: 2_000, forgetful: true });
  try {
    const model = await modelServedAt(api, engine.url);
    await gotoLive(page, "/usage");
    await expect(page.getByRole("heading", { level: 1, name: "Usage" })).toBeVisible();

    // Demo-like traffic: chats, half of them streamed without asking for usage.
    const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: "none", maxRetries: 0 });
    const SENT = 6;
    for (let i = 0; i < SENT; i++) {
      const messages = [{ role: "user" as const, content: `how many words are in question ${i}` }];
      if (i % 2 === 0) await client.chat.completions.create({ model: model.name, messages });
      else
        for await (const _ of await client.chat.completions.create({
          model: model.name,
          messages,
          stream: true,
        }));
    }
    const sentAt = Date.now();
    const ours = page.locator(`[data-testid="usage-row"][data-key="${model.name}"]`);
    await expect(ours.locator("td").first()).toHaveText(String(SENT), { timeout: 8_000 });
    const shownMs = Date.now() - sentAt;
    console.log(`usage shown ${shownMs} ms after the last request`);
    expect(shownMs).toBeLessThan(6_000);

    // The chart is drawn, with data: our model is a series, and its canvas is painted.
    const chart = page.getByTestId("usage-chart-tokens");
    await expect(chart.locator("canvas")).toHaveCount(1);
    await expect(chart).toHaveAttribute("data-keys", new RegExp(model.name));
    expect(Number(await chart.getAttribute("data-total"))).toBeGreaterThan(0);
    await expect.poll(() => paintedPixels(chart)).toBeGreaterThan(50);
    await expect(page.getByTestId("usage-chart-replica-hours").locator("canvas")).toHaveCount(1);

    // The table equals the API's rows summed by key (the page's period: the last 24 hours).
    await expect
      .poll(
        async () => {
          const to = new Date();
          const reading = await answer(
            api.usage.$get({
              query: {
                by: "model",
                from: new Date(to.getTime() - 86_400_000).toISOString(),
                to: to.toISOString(),
              },
            }),
          );
          const sums: Record<string, number[]> = {};
          for (const r of reading.rows) {
            const [requests = 0, prompt = 0, completion = 0] = sums[r.key] ?? [];
            sums[r.key] = [requests + r.requests, prompt + r.promptTokens, completion + r.completionTokens];
          }
          // The table is ordered by use, the API by key: compared as sets of rows.
          const sorted = (o: Record<string, number[]>) => JSON.stringify(Object.entries(o).sort());
          const table = await tableRows(page);
          return sorted(sums) === sorted(table) ? "equal" : JSON.stringify({ sums, table });
        },
        { timeout: 8_000 },
      )
      .toBe("equal");
    expect((await tableRows(page))[model.name]).toEqual([SENT, expect.any(Number), SENT * 12]);

    // The key switch: into the address, and the series are the owners' now.
    await page.getByLabel("By", { exact: true }).selectOption("owner");
    await expect(page).toHaveURL(/[?&]by=owner\b/);
    await expect(page.getByTestId("usage-chart-tokens")).toHaveAttribute(
      "data-keys",
      new RegExp(model.owner),
    );
    await expect(page.getByRole("columnheader", { name: "Owner" })).toBeVisible();
    await page.getByLabel("By", { exact: true }).selectOption("token");
    await expect(page).toHaveURL(/[?&]by=token\b/);
    // No tokens on this server: every request is counted under "-"; replicas are not a token's.
    await expect(page.getByTestId("usage-chart-tokens")).toHaveAttribute("data-keys", '["-"]');
    await expect(page.getByTestId("usage-chart-replica-hours")).toHaveCount(0);
    await page.getByLabel("Period", { exact: true }).selectOption("7d");
    await expect(page).toHaveURL(/[?&]period=7d\b/);

    // The address alone brings the same view back.
    await page.reload();
    await expect(page.getByLabel("By", { exact: true })).toHaveValue("token");
    await expect(page.getByLabel("Period", { exact: true })).toHaveValue("7d");
    await expect(page.getByTestId("usage-chart-tokens")).toHaveAttribute("data-keys", '["-"]');
  } finally {
    await engine.close();
  }
});

test("an empty period says how usage appears", async ({ page }) => {
  await page.route("**/api/v1/usage?*", (route) =>
    route.fulfill({
      status: 200,
      contentType: "application/json",
      body: JSON.stringify({
        by: "model",
        step: "hour",
        from: new Date(Date.now() - 86_400_000).toISOString(),
        to: new Date().toISOString(),
        rows: [],
        totals: { requests: 0, refused: 0, failed: 0, promptTokens: 0, cachedTokens: 0, completionTokens: 0 },
      }),
    }),
  );
  await page.goto("/usage");
  await expect(page.getByTestId("usage-empty")).toContainText("/v1/chat/completions");
  await expect(page.getByTestId("usage-empty")).toContainText("within seconds");
});

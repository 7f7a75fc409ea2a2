import { answer } from "@llmgw/client";
import type { ModelTraffic } from "@llmgw/domain";
import { makeTraffic } from "@llmgw/domain/testing";
import { expect, type Page } from "@playwright/test";
import { gotoLive, modelInput, openModelCard, test, uniqueName } from "./fixtures";

const GB = 1024 ** 3;

test("a starting replica's download and load show as a bar on its card, live", async ({ page, api }) => {
  const pool = uniqueName("pool");
  const node = uniqueName("e2e-node");
  const model = await answer(
    api.models.$post({
      json: modelInput({
        profile: { name: "gpu", engine: "vllm", minMemoryGB: 8, cpuCores: 2, nodeSelector: { pool } },
      }),
    }),
  );
  const beat = { name: node, memoryGB: 64, cpuCount: 16, engines: ["vllm"], labels: { pool } };
  const replica = { id: `${node}-r1`, model: model.name, state: "starting" as const };

  await gotoLive(page, "/");
  const card = page.getByTestId(`capacity-card-${model.name}`);
  await expect(card.getByTestId("traffic-none")).toBeVisible();

  const done = Math.round(1.2 * GB);
  const total = Math.round(4.1 * GB);
  await answer(
    api.agents.heartbeat.$post({
      json: {
        node: beat,
        replicas: [{ ...replica, progress: { phase: "download", bytesDone: done, bytesTotal: total } }],
      },
    }),
  );
  const line = card.getByTestId(`replica-activity-${replica.id}`);
  await expect(line.getByTestId("replica-progress")).toContainText("downloading 1.2 / 4.1 GB (29%)");
  const bar = line.getByRole("progressbar", { name: /downloading 1\.2 \/ 4\.1 GB/ });
  await expect(bar).toHaveAttribute("value", String(done));
  await expect(bar).toHaveAttribute("max", String(total));

  await answer(
    api.agents.heartbeat.$post({
      json: {
        node: beat,
        replicas: [{ ...replica, progress: { phase: "load", bytesDone: total, bytesTotal: total } }],
      },
    }),
  );
  await expect(line.getByTestId("replica-progress")).toHaveText("loading");
  // Loading has no bytes to count: the bar runs without a value rather than reading as done.
  await expect(line.getByRole("progressbar")).not.toHaveAttribute("value");

  await answer(
    api.agents.heartbeat.$post({ json: { node: beat, replicas: [{ ...replica, state: "ready" }] } }),
  );
  await expect(line).toHaveCount(0);
});

/** Stands in for the server's stream: the gateway's traffic events, then a long pause before any retry. */
async function streamTraffic(page: Page, events: ModelTraffic[]): Promise<void> {
  const body = [
    "retry: 600000\n\n",
    ...events.map((e) => `event: model.traffic\ndata: ${JSON.stringify(e)}\n\n`),
  ].join("");
  await page.route("**/api/v1/events*", (route) =>
    route.fulfill({ status: 200, headers: { "Content-Type": "text/event-stream" }, body }),
  );
}

test("traffic events draw each card's chart and numbers; at 1280 and at a phone's width", async ({
  page,
  api,
}, testInfo) => {
  const [busy, waking, quiet] = await Promise.all([
    answer(api.models.$post({ json: modelInput() })),
    answer(api.models.$post({ json: modelInput() })),
    answer(api.models.$post({ json: modelInput() })),
  ]);
  const traffic = (model: string, overrides: Partial<ModelTraffic>) => makeTraffic({ model, ...overrides });
  await streamTraffic(page, [
    traffic(busy.name, { requestsPerSecond: 2 }),
    traffic(busy.name, {
      requestsPerSecond: 4,
      inFlight: 3,
      queued: 2,
      firstByteP50Ms: 180,
      tokensPerSecond: 240,
    }),
    traffic(waking.name, { queued: 3, waitingSeconds: 12, waking: true }),
  ]);

  await gotoLive(page, "/");
  const card = page.getByTestId(`capacity-card-${busy.name}`);
  const chart = card.getByRole("img", { name: /^Requests per second over the last 5 minutes: 4 now/ });
  await expect(chart).toBeVisible();
  // uPlot arrives in its own chunk and draws on a canvas inside the labelled picture.
  await expect(chart.locator("canvas")).toBeVisible();
  await expect(card.getByTestId("traffic-in-flight")).toHaveText("3");
  await expect(card.getByTestId("traffic-queued")).toHaveText("2");
  await expect(card.getByTestId("traffic-first-byte")).toHaveText("180 ms");
  await expect(page.getByTestId(`capacity-card-${waking.name}`).getByTestId("traffic-waking")).toHaveText(
    "waking: 3 requests waiting for 12 s",
  );
  await expect(page.getByTestId(`capacity-card-${quiet.name}`).getByTestId("traffic-none")).toBeVisible();
  await expect(page.getByTestId(`capacity-card-${quiet.name}`).getByTestId("traffic")).toHaveCount(0);

  const modelCard = await openModelCard(page, busy.name);
  await expect(modelCard.getByRole("img", { name: /^Requests per second/ }).locator("canvas")).toBeVisible();
  await expect(modelCard.getByTestId("traffic-in-flight")).toHaveText("3");

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    await modelCard.getByTestId("traffic").scrollIntoViewIfNeeded();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const [cardBox, canvasBox] = await Promise.all([
      modelCard.boundingBox(),
      modelCard.getByTestId("traffic-chart").locator("canvas").boundingBox(),
    ]);
    expect((canvasBox?.x ?? 0) + (canvasBox?.width ?? 0)).toBeLessThanOrEqual(
      (cardBox?.x ?? 0) + (cardBox?.width ?? 0),
    );
    const file = testInfo.outputPath(`traffic-${viewport.width}x${viewport.height}.png`);
    await modelCard.screenshot({ path: file });
    await testInfo.attach(`traffic-${viewport.width}`, { path: file, contentType: "image/png" });
  }
});

import { type Beating, beatEverySecond, bigFleetBeat } from "@llmgw/api/testing";
import { answer, connect } from "@llmgw/client";
import { type CDPSession, expect, type Page } from "@playwright/test";
import { test } from "./fixtures";
import { startTokenServer, type TokenServer } from "./tokenServer";

// The dashboard on a big fleet (issue 17): a server of its own with MODELS models and NODES nodes
// (scale-server.ts writes them to its store; seeding them through the API takes minutes), while
// one node's agent reports a different free memory every second, as a busy node's would.
// Timings are printed as annotations, never asserted beyond a sanity bound: `pnpm bench` has them.

const MODELS = 500;
const NODES = 2000;
/** How many beats the Capacity page is watched through. */
const BEATS = 5;

test.describe.configure({ mode: "serial" });

let server: TokenServer | null = null;
let beating: Beating | null = null;

test.beforeAll(async () => {
  test.setTimeout(300_000);
  server = await startTokenServer(
    [],
    { LLMGW_E2E_MODELS: String(MODELS), LLMGW_E2E_NODES: String(NODES) },
    "scale-server.ts",
    /seeded .* on (http:\/\/\S+)/,
  );
  beating = beatEverySecond(server.url, { models: MODELS });
});

test.afterAll(async () => {
  await beating?.stop();
  await server?.stop();
});

/** The bytes of every response body the page receives, the event stream's included, and its events. */
async function watchNetwork(page: Page) {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  let bytes = 0;
  const events: string[] = [];
  const waiting: Array<{ type: string; count: number; resolve: () => void }> = [];
  cdp.on("Network.dataReceived", (e) => {
    bytes += e.dataLength;
  });
  cdp.on("Network.eventSourceMessageReceived", (e) => {
    events.push(e.eventName);
    for (const w of waiting.filter((w) => events.filter((t) => t === w.type).length >= w.count)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve();
    }
  });
  return {
    reset() {
      bytes = 0;
      events.length = 0;
    },
    get bytes() {
      return bytes;
    },
    /** Resolves once `count` events of `type` have arrived since the last reset. */
    until(type: string, count: number) {
      return new Promise<void>((resolve) => {
        if (events.filter((t) => t === type).length >= count) resolve();
        else waiting.push({ type, count, resolve });
      });
    },
  };
}

test("the Capacity page follows a beating big fleet from its event stream: no list is fetched again", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const base = server?.url ?? "";
  const network = await watchNetwork(page);
  const lists: string[] = [];
  page.on("request", (req) => {
    const path = new URL(req.url()).pathname;
    if (["/api/v1/headroom", "/api/v1/capacity", "/api/v1/models", "/api/v1/fleet/nodes"].includes(path))
      lists.push(path);
  });
  const headroomLoaded = page.waitForResponse((res) => new URL(res.url()).pathname === "/api/v1/headroom", {
    timeout: 60_000,
  });
  await page.goto(`${base}/`);
  await expect(page.getByTestId("capacity-count")).toHaveText(`${MODELS} models`, { timeout: 60_000 });
  await headroomLoaded;
  await expect(page.getByTestId("capacity-card-model-0")).toBeVisible();

  lists.length = 0;
  network.reset();
  const started = Date.now();
  await network.until("node.changed", BEATS);
  const seconds = (Date.now() - started) / 1000;

  expect(lists).toEqual([]);
  // What a beat costs the page: its event (and a headroom.changed if one moved), not the lists
  // (GET /headroom is hundreds of kB at this size).
  const perBeat = network.bytes / BEATS;
  expect(perBeat).toBeLessThan(50_000);
  test.info().annotations.push({
    type: "bytes",
    description: `${network.bytes} bytes over ${BEATS} beats in ${seconds.toFixed(1)} s (${(network.bytes / seconds / 1000).toFixed(1)} kB/s)`,
  });
});

/** Types `text` into `input` key by key, timing each keydown to the frame after it. */
async function typeTimed(page: Page, label: string, text: string): Promise<number[]> {
  await page.evaluate(() => {
    const w = window as unknown as { keyLatencies: number[] };
    w.keyLatencies = [];
    document.addEventListener("keydown", (e) => {
      const start = e.timeStamp;
      requestAnimationFrame(() => setTimeout(() => w.keyLatencies.push(performance.now() - start)));
    });
  });
  await page.getByLabel(label, { exact: true }).pressSequentially(text, { delay: 50 });
  return page.evaluate(() => (window as unknown as { keyLatencies: number[] }).keyLatencies);
}

function latencyNote(what: string, times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  test.info().annotations.push({
    type: "input latency",
    description: `${what}: keydown → next frame over ${times.length} keys: min ${sorted[0]?.toFixed(0)} ms, median ${median.toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms`,
  });
  return median;
}

/**
 * A long list's page: few of its cards drawn, and a search that leaves the one asked for. Its
 * cards are `<card>-card-<item>-<i>`, its count `<countId>`: "500 models".
 */
async function searchLongList(
  page: Page,
  list: { path: string; countId: string; noun: string; total: number; card: string; item: string },
) {
  const { path, countId, noun, total, card, item } = list;
  const cards = page.locator(`[data-testid^="${card}-card-"]`);
  await page.goto(`${server?.url ?? ""}${path}`);
  const count = page.getByTestId(countId);
  await expect(count).toHaveText(`${total} ${noun}`, { timeout: 60_000 });
  await expect(page.getByTestId(`${card}-card-${item}-0`)).toBeVisible();
  // Capacity draws its first cards whole until the windowing has loaded (it is not in the first
  // page's JavaScript): once it has, few are drawn.
  await expect.poll(() => cards.count()).toBeLessThan(total / 10);
  expect(await cards.count()).toBeGreaterThan(0);

  const wanted = `${item}-${total - 1}`;
  const times = await typeTimed(page, "Search", wanted);
  await expect(count).toHaveText(`1 of ${total} ${noun}`);
  await expect(page.getByTestId(`${card}-card-${wanted}`)).toBeVisible();
  await expect(cards).toHaveCount(1);
  return times;
}

test("Models draws only the cards near the view of a big catalogue, and its search filters as you type", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const times = await searchLongList(page, {
    path: "/models",
    countId: "models-count",
    noun: "models",
    total: MODELS,
    card: "model",
    item: "model",
  });
  // A sanity bound only: a keystroke that takes a second to draw is broken, whatever the machine.
  expect(latencyNote("Models search", times)).toBeLessThan(1000);
});

test("Fleet draws only the cards near the view of a big fleet, and its search filters as you type", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const times = await searchLongList(page, {
    path: "/fleet",
    countId: "nodes-count",
    noun: "nodes",
    total: NODES,
    card: "node",
    item: "node",
  });
  expect(latencyNote("Fleet search", times)).toBeLessThan(1000);
});

test("Capacity draws only the cards near the view of a big catalogue, its search filters as you type, and an opened card stays open", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const times = await searchLongList(page, {
    path: "/",
    countId: "capacity-count",
    noun: "models",
    total: MODELS,
    card: "capacity",
    item: "model",
  });
  expect(latencyNote("Capacity search", times)).toBeLessThan(1000);

  // Opening a card fetches its per-node list; scrolled out of view and back, it is still open.
  await page.getByLabel("Search", { exact: true }).fill("");
  await expect(page.getByTestId("capacity-count")).toHaveText(`${MODELS} models`);
  const card = page.getByTestId("capacity-card-model-0");
  const perNode = page.waitForResponse(
    (res) => new URL(res.url()).pathname === "/api/v1/models/model-0/headroom",
  );
  await card.getByTestId("headroom-nodes").locator("summary").click();
  await perNode;
  await expect(card.getByTestId("headroom-node-node-0")).toBeVisible();
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await expect(card).not.toBeAttached();
  await page.evaluate(() => window.scrollTo(0, 0));
  await expect(card.getByTestId("headroom-node-node-0")).toBeVisible();
});

test("Fleet follows node and replica events in place: no list is fetched again, and a changed node's card shows its new numbers", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const base = server?.url ?? "";
  const { api } = connect({ server: base });
  const nodeOne = async () => (await answer(api.fleet.nodes.$get())).find((n) => n.name === "node-1");
  const network = await watchNetwork(page);
  const fetched: string[] = [];
  page.on("request", (req) => {
    const path = new URL(req.url()).pathname;
    if (path === "/api/v1/fleet/nodes" || path === "/api/v1/fleet/replicas") fetched.push(path);
  });
  await page.goto(`${base}/fleet`);
  await expect(page.getByTestId("nodes-count")).toHaveText(`${NODES} nodes`, { timeout: 60_000 });
  const card = page.getByTestId("node-card-node-1");
  await expect(card).toBeVisible();
  const before = await nodeOne();

  // node-0 beats on; node-1's agent now also reports a third replica every other beat.
  fetched.length = 0;
  network.reset();
  const churning = beatEverySecond(base, { models: MODELS, node: 1, churn: true });
  try {
    await network.until("replica.changed", 4);
    await network.until("node.changed", 6);
  } finally {
    await churning.stop();
  }
  // Its last beat, with the third replica and a reading no other beat sends.
  const last = bigFleetBeat(1, { models: MODELS, replicas: 3 });
  await answer(api.agents.heartbeat.$post({ json: { ...last, node: { ...last.node, freeMemoryGB: 77 } } }));
  const after = await nodeOne();
  expect(after?.usage.free.memoryGB).not.toBe(before?.usage.free.memoryGB);

  await expect(card.getByTestId("node-memory")).toContainText(
    `${after?.usage.free.memoryGB} GB free of 256 GB`,
  );
  await expect(card).toContainText("agent measures 77 GB free");
  await expect(card.locator("details.replicas summary")).toHaveText("3 replicas here");
  expect(fetched).toEqual([]);
});

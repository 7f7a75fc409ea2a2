import { type Beating, beatEverySecond } from "@llmgw/api/testing";
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
    if (["/api/v1/headroom", "/api/v1/capacity", "/api/v1/models", "/api/v1/nodes"].includes(path))
      lists.push(path);
  });
  const headroomLoaded = page.waitForResponse((res) => new URL(res.url()).pathname === "/api/v1/headroom", {
    timeout: 60_000,
  });
  await page.goto(`${base}/`);
  await expect(page.getByTestId("capacity-count")).toHaveText(`${MODELS} models`, { timeout: 60_000 });
  await headroomLoaded;
  await expect(page.getByTestId(`capacity-card-model-${MODELS - 1}`)).toBeAttached();

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

/** A long list's page: few of its cards drawn, and a search that leaves the one asked for. */
async function searchLongList(page: Page, list: { path: string; noun: string; total: number; kind: string }) {
  const { path, noun, total, kind } = list;
  const cards = page.locator(`[data-testid^="${kind}-card-"]`);
  await page.goto(`${server?.url ?? ""}${path}`);
  const count = page.getByTestId(`${noun}-count`);
  await expect(count).toHaveText(`${total} ${noun}`, { timeout: 60_000 });
  await expect(page.getByTestId(`${kind}-card-${kind}-0`)).toBeVisible();
  const drawn = await cards.count();
  expect(drawn).toBeGreaterThan(0);
  expect(drawn).toBeLessThan(total / 10);

  const wanted = `${kind}-${total - 1}`;
  const times = await typeTimed(page, "Search", wanted);
  await expect(count).toHaveText(`1 of ${total} ${noun}`);
  await expect(page.getByTestId(`${kind}-card-${wanted}`)).toBeVisible();
  await expect(cards).toHaveCount(1);
  return times;
}

test("Models draws only the cards near the view of a big catalogue, and its search filters as you type", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const times = await searchLongList(page, { path: "/models", noun: "models", total: MODELS, kind: "model" });
  // A sanity bound only: a keystroke that takes a second to draw is broken, whatever the machine.
  expect(latencyNote("Models search", times)).toBeLessThan(1000);
});

test("Fleet draws only the cards near the view of a big fleet, and its search filters as you type", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const times = await searchLongList(page, { path: "/fleet", noun: "nodes", total: NODES, kind: "node" });
  expect(latencyNote("Fleet search", times)).toBeLessThan(1000);
});

// The dashboard on a big fleet (issue 17), in Chromium against `llmgw serve` seeded with MODELS
// models and NODES nodes (serve.ts `big`), while one node's agent reports a different free memory
// every second:
// - bytes the open Capacity page downloads per second after its first load (every response body
//   and the event stream, counted by the browser's own network events), beside the peer: what
//   refetching GET /headroom and GET /capacity once per beat, as the page did before, would cost;
// - input latency while typing into the Models, Fleet and Capacity search boxes (keydown → the
//   frame after it), min, median and max. No peer: all three lists are drawn virtualised now; the
//   Capacity board, drawn whole before, took a median of about 100 ms a key at 2,000 models.
// BENCH_DASHBOARD_SIZES (default "500x2000,2000x5000") says which sizes; BENCH_BEAT_SECONDS how long
// the page is watched.

import { fileURLToPath } from "node:url";
import { beatEverySecond } from "@llmgw/api/testing";
import { type Browser, chromium, type Page } from "@playwright/test";
import { child, median, type Row } from "./report";

export const names = ["dashboard bytes per second on a big fleet", "dashboard input latency on a big fleet"];
const SIZES = (process.env.BENCH_DASHBOARD_SIZES ?? "500x2000,2000x5000").split(",").map((size) => {
  const [models, nodes] = size.split("x").map(Number);
  return { models: models ?? 500, nodes: nodes ?? 2000 };
});
const WATCH_SECONDS = Number(process.env.BENCH_BEAT_SECONDS ?? 10);
/** A search that leaves one card: typed key by key. */
const KEYS_DELAY_MS = 60;
/** How many times the search is typed and cleared: a few dozen keys to take the median of. */
const TYPING_ROUNDS = 4;

export async function run(): Promise<Row[]> {
  const config = (await import("@llmgw/e2e/playwright.config")).default;
  const dist = fileURLToPath(new URL("../../apps/web/dist", import.meta.url));
  const browser = await chromium.launch({ ...config.use?.launchOptions, headless: true });
  const rows: Row[] = [];
  try {
    for (const size of SIZES) rows.push(...(await atSize(browser, dist, size)));
  } finally {
    await browser.close();
  }
  return rows;
}

async function atSize(browser: Browser, dist: string, { models, nodes }: { models: number; nodes: number }) {
  const seeding = performance.now();
  const server = child("./serve.ts", ["big", String(models), String(nodes), dist]);
  const { port } = await server.ask<{ port: number }>(null);
  const base = `http://127.0.0.1:${port}`;
  const size = `${models} models × ${nodes} nodes`;
  console.log(`${size}: server seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
  const beating = beatEverySecond(base, { models });
  try {
    const bytes = await capacityBytes(browser, base, models, beating);
    const peer = await listBytes(base);
    const typing = {
      models: await typingLatency(browser, `${base}/models`, "models-count", `model-${models - 1}`),
      fleet: await typingLatency(browser, `${base}/fleet`, "nodes-count", `node-${nodes - 1}`),
      capacity: await typingLatency(browser, `${base}/`, "capacity-count", `model-${models - 1}`),
    };
    const kBs = bytes.bytes / bytes.seconds / 1000;
    console.log(
      `${size}: Capacity page ${bytes.bytes} bytes in ${bytes.seconds.toFixed(1)} s (${kBs.toFixed(1)} kB/s), ` +
        `${bytes.beats} beats (${beating.failed} failed in all), ${bytes.lists} list requests; one refetch of /headroom + /capacity is ${peer} bytes`,
    );
    const spread = (t: number[]) =>
      `min ${Math.min(...t).toFixed(0)} ms, median ${median(t).toFixed(0)} ms, max ${Math.max(...t).toFixed(0)} ms`;
    console.log(`${size}: Models search: ${spread(typing.models)} over ${typing.models.length} keys`);
    console.log(`${size}: Fleet search: ${spread(typing.fleet)} over ${typing.fleet.length} keys`);
    console.log(`${size}: Capacity search: ${spread(typing.capacity)} over ${typing.capacity.length} keys`);
    const latencyRow = (what: string, t: number[]): Row => ({
      measure: `${what} search, keydown → next frame, ${size}, a beat a second`,
      value: spread(t),
      aim: "median ≤ 50 ms",
      met: median(t) <= 50,
    });
    return [
      {
        measure: `Capacity page bytes/s after first load, ${size}, a beat a second`,
        value: `${kBs.toFixed(1)} kB/s (${bytes.lists} list refetches)`,
        peer: `refetching /headroom + /capacity per beat: ${(peer / 1000).toFixed(0)} kB/s`,
        ratio: `${(bytes.bytes / bytes.seconds / peer).toFixed(3)}×`,
        aim: "≤ 50 kB/s",
        met: kBs <= 50 && bytes.lists === 0,
      },
      latencyRow("Models", typing.models),
      latencyRow("Fleet", typing.fleet),
      latencyRow("Capacity", typing.capacity),
    ];
  } finally {
    await beating.stop();
    await server.stop();
  }
}

/** The Capacity page loaded, then watched for WATCH_SECONDS: every body byte it receives. */
async function capacityBytes(browser: Browser, base: string, models: number, beating: { beats: number }) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    let bytes = 0;
    cdp.on("Network.dataReceived", (e) => {
      bytes += e.dataLength;
    });
    let lists = 0;
    let watching = false;
    const listPaths = ["/api/v1/headroom", "/api/v1/capacity", "/api/v1/models", "/api/v1/nodes"];
    page.on("request", (req) => {
      if (watching && listPaths.includes(new URL(req.url()).pathname)) lists += 1;
    });
    await page.goto(`${base}/`);
    await until(
      page,
      `document.querySelector('[data-testid="capacity-count"]')?.textContent === "${models} models"`,
    );
    // The headroom list follows the models: the first load is over once it has arrived.
    await until(page, `performance.getEntriesByName("${base}/api/v1/headroom").length > 0`);
    bytes = 0;
    watching = true;
    const beatsBefore = beating.beats;
    const start = performance.now();
    await new Promise((resolve) => setTimeout(resolve, WATCH_SECONDS * 1000));
    const seconds = (performance.now() - start) / 1000;
    return { bytes, seconds, lists, beats: beating.beats - beatsBefore };
  } finally {
    await page.close();
  }
}

/** What one whole-list refetch costs: GET /headroom and GET /capacity's bodies. */
async function listBytes(base: string): Promise<number> {
  let total = 0;
  for (const path of ["/api/v1/headroom", "/api/v1/capacity"]) {
    total += (await (await fetch(`${base}${path}`)).arrayBuffer()).byteLength;
  }
  return total;
}

/** Types `text` into the page's search box; each keydown's time to the frame after it. */
async function typingLatency(browser: Browser, url: string, countId: string, text: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await page.goto(url);
    await until(
      page,
      `/^\\d+ (models|nodes)$/.test(document.querySelector('[data-testid="${countId}"]')?.textContent ?? "")`,
    );
    // A string, not a function: tsx's transform would name the functions with a helper the page lacks.
    await page.evaluate(`(() => {
      window.keyLatencies = [];
      document.addEventListener("keydown", (e) => {
        const start = e.timeStamp;
        requestAnimationFrame(() => setTimeout(() => window.keyLatencies.push(performance.now() - start)));
      });
    })()`);
    const search = page.locator('input[type="search"]');
    const count = `document.querySelector('[data-testid="${countId}"]')?.textContent`;
    for (let round = 0; round < TYPING_ROUNDS; round++) {
      await search.pressSequentially(text, { delay: KEYS_DELAY_MS });
      await until(page, `${count}?.startsWith("1 of")`);
      await search.fill("");
      await until(page, `!${count}?.includes(" of ")`);
    }
    return await page.evaluate<number[]>("window.keyLatencies");
  } finally {
    await page.close();
  }
}

/**
 * Resolves once `condition` (an expression) holds in the page. A string evaluated by the browser,
 * polled in the page: the dashboard's CSP refuses waitForFunction's eval, and tsx's transform
 * would name a function with a helper the page does not have.
 */
async function until(page: Page, condition: string, timeoutMs = 120_000): Promise<void> {
  const met = await page.evaluate<boolean>(`new Promise((resolve) => {
    const timeout = setTimeout(() => { clearInterval(poll); resolve(false); }, ${timeoutMs});
    const poll = setInterval(() => {
      if (!(${condition})) return;
      clearInterval(poll);
      clearTimeout(timeout);
      resolve(true);
    }, 50);
  })`);
  if (!met) throw new Error(`the page never met: ${condition}`);
}

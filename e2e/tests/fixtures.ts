// What the browser tests share: names no other test uses, the typed API client the agents and
// `llmgw ctl` use (to make models and heartbeats and to read what the server says, so a test can
// compare the page with the server), and ways to watch what the page sends.
// Every test makes its own data: they all share one server (see playwright.config.ts).
import { answer, type Connection, connect, segment } from "@llmgw/client";

export { segment } from "@llmgw/client";

import type { Heartbeat, ModelInput, QuotaUsage } from "@llmgw/domain";
import { test as base, expect, type Page, type Request } from "@playwright/test";

/**
 * Playwright's `test` with `api`: the server under test through `@llmgw/client`, without a token.
 * In the "postgres" project without TEST_DATABASE_URL there is no server: its tests are skipped.
 */
export const test = base.extend<{ api: Connection["api"]; store: undefined }>({
  store: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern; it needs none.
    async ({}, use, testInfo) => {
      testInfo.skip(
        testInfo.project.name === "postgres" && !process.env.TEST_DATABASE_URL,
        "the PostgreSQL project needs TEST_DATABASE_URL",
      );
      await use(undefined);
    },
    { auto: true },
  ],
  api: async ({ baseURL }, use) => {
    if (!baseURL) throw new Error("playwright.config.ts sets baseURL: the server under test");
    await use(connect({ server: baseURL }).api);
  },
});

let counter = 0;

/** A name no other test (nor an earlier run against a reused server) has taken. */
export function uniqueName(prefix: string): string {
  counter += 1;
  const random = Math.random().toString(36).slice(2, 7);
  return `${prefix}-${Date.now().toString(36)}${counter}${random}`;
}

/** An owner of this test's own with a quota (`null` = no limit in that dimension). */
export async function ownerWithQuota(
  api: Connection["api"],
  limits: Omit<QuotaUsage, "owner" | "used">,
): Promise<string> {
  const owner = uniqueName("team");
  await answer(api.quotas[":owner"].$put({ param: { owner: segment(owner) }, json: limits }));
  return owner;
}

type Profile = ModelInput["profiles"][number];
type ModelOverrides = Partial<Omit<ModelInput, "profiles">> & { profile?: Partial<Profile> };

/**
 * A runtime model of its own owner (so no quota applies and no other test's usage counts), stopped
 * unless told otherwise, so it takes no capacity from the models other tests look at.
 */
export function modelInput({ profile, ...overrides }: ModelOverrides = {}): ModelInput {
  return {
    name: uniqueName("e2e-model"),
    source: "http://127.0.0.1/mirror/e2e/v1/e2e.gguf",
    contextLength: 4096,
    class: "standard",
    owner: uniqueName("team"),
    scaling: { min: 0, max: 0 },
    ...overrides,
    profiles: [{ name: "cpu", engine: "llamacpp", minMemoryGB: 8, cpuCores: 2, ...profile }],
  };
}

/**
 * A model of its own pool with one ready replica answering at `endpoint` (a stand-in engine),
 * reported as its node's agent would: the e2e server places nothing itself, so that replica is the
 * model's, and its own pool keeps other tests' nodes off it.
 */
export async function modelServedAt(
  api: Connection["api"],
  endpoint: string,
  replica: Partial<NonNullable<Heartbeat["replicas"]>[number]> = {},
) {
  const pool = uniqueName("pool");
  const model = await answer(
    api.models.$post({
      json: modelInput({
        scaling: { min: 1, max: 1 },
        profile: { minMemoryGB: 6, cpuCores: 1, nodeSelector: { pool } },
      }),
    }),
  );
  const node = uniqueName("e2e-node");
  await answer(
    api.agents.heartbeat.$post({
      json: {
        node: { name: node, memoryGB: 64, cpuCount: 16, engines: ["llamacpp"], labels: { pool } },
        replicas: [{ id: `${node}-r1`, model: model.name, state: "ready", endpoint, ...replica }],
      },
    }),
  );
  return model;
}

/** Every request the page sends that matches, from now on, to assert what was (not) sent. */
export function watchRequests(page: Page, method: string, path: string): Request[] {
  const seen: Request[] = [];
  page.on("request", (req) => {
    if (req.method() === method && new URL(req.url()).pathname === path) seen.push(req);
  });
  return seen;
}

/** The PATCH a card sends for one model. */
export function isPatchOf(name: string) {
  return (req: Request) =>
    req.method() === "PATCH" && new URL(req.url()).pathname === `/api/v1/models/${encodeURIComponent(name)}`;
}

/**
 * Opens a page and waits until its event stream is subscribed (the server sends the stream's
 * headers once it listens), so a change made after this reaches the page without a reload.
 */
export async function gotoLive(page: Page, path: string): Promise<void> {
  const subscribed = page.waitForResponse((res) => new URL(res.url()).pathname === "/api/v1/events");
  await page.goto(path);
  await subscribed;
}

/** Opens the models page on one card, live. */
export async function openModelCard(page: Page, name: string) {
  await gotoLive(page, `/models?model=${encodeURIComponent(name)}`);
  const card = page.getByTestId(`model-card-${name}`);
  await expect(card).toBeVisible();
  return card;
}

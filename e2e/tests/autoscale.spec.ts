import { StandInEngine } from "@llmgw/simulation";
import { expect, test } from "@playwright/test";
import { newSecret, signIn, startTokenServer, type TokenServer } from "./tokenServer";

// SPEC §9 seen on the model card, live: an always-on model made 1–3 replicas inline on its card, on its own server
// (autoscale-server.ts: scheduler on, a window of 4 s) and an agent here that runs stand-in engines
// for whatever the scheduler places on its node. Three requests at once, held by the engines,
// take it to 3 replicas; once they end and the window passes, it is back at 1. The card says so
// as it happens, and draws requests/s and replicas on one chart.

const TOKENS = { admin: newSecret(), agent: newSecret() };
const NODE = "e2e-autoscale-node";
const MODEL = "e2e-scaled";

let server: TokenServer | null = null;
const engines = new Map<string, StandInEngine>();
let holding: (() => void)[] | null = null;
let beating: ReturnType<typeof setInterval> | null = null;

async function call(path: string, token: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${server?.url ?? ""}${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return res;
}

/** One heartbeat: report the engines running, start what the reply lists, stop what it does not. */
async function beat(): Promise<void> {
  const replicas = [...engines].map(([id, engine]) => ({
    id,
    model: MODEL,
    state: "ready",
    endpoint: engine.url,
  }));
  const res = await call("/api/v1/agents/heartbeat", TOKENS.agent, {
    method: "POST",
    body: { node: { name: NODE, memoryGB: 64, cpuCount: 32, engines: ["llamacpp"] }, replicas },
  });
  if (res.status !== 200) return;
  const reply = (await res.json()) as { replicas: { id: string }[] };
  const wanted = new Set(reply.replicas.map((r) => r.id));
  for (const [id, engine] of engines) {
    if (wanted.has(id)) continue;
    engines.delete(id);
    await engine.close();
  }
  for (const id of wanted) {
    if (engines.has(id)) continue;
    const engine = await StandInEngine.start({ model: MODEL, tokensPerSecond: 200, replyTokens: 4 });
    if (holding) holding.push(engine.hold());
    engines.set(id, engine);
  }
}

test.beforeAll(async () => {
  test.setTimeout(90_000);
  server = await startTokenServer(
    [
      { name: "e2e-admin", role: "admin", secret: TOKENS.admin },
      { name: "e2e-agent", role: "agent", node: NODE, secret: TOKENS.agent },
    ],
    {},
    "autoscale-server.ts",
  );
  let busy = false;
  beating = setInterval(() => {
    if (busy) return;
    busy = true;
    void beat().finally(() => {
      busy = false;
    });
  }, 200);
});

test.afterAll(async () => {
  if (beating) clearInterval(beating);
  for (const release of holding ?? []) release();
  await Promise.all([...engines.values()].map((e) => e.close()));
  await server?.stop();
});

test("the model card shows its replicas following traffic: up for a burst, back to the floor after the window", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const created = await call("/api/v1/models", TOKENS.admin, {
    method: "POST",
    body: {
      name: MODEL,
      source: "https://example.invalid/scaled.gguf",
      contextLength: 4096,
      scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 },
      profiles: [{ name: "cpu", engine: "llamacpp", minMemoryGB: 4, cpuCores: 2 }],
    },
  });
  expect(created.status).toBe(201);

  await page.goto(`${server?.url ?? ""}/models?model=${MODEL}`);
  await signIn(page, TOKENS.admin);
  const card = page.getByTestId(`model-card-${MODEL}`);
  await expect(card.getByTestId("model-autoscale")).toHaveCount(0);
  // Autoscaling set inline on the card: up to 3 replicas, one request each.
  await card.getByLabel("Max replicas", { exact: true }).fill("3");
  await card.getByLabel("Requests per replica", { exact: true }).fill("1");
  await card.getByTestId("model-save").click();
  await expect(card.getByTestId("model-saved")).toHaveText("Saved");
  const line = card.getByTestId("model-autoscale");
  await expect(line.getByTestId("autoscale-range")).toHaveText("1–3");
  await expect(line.getByTestId("autoscale-running")).toHaveText("1", { timeout: 20_000 });

  // Three requests at once, each held by its engine: 1 per replica wanted, so 3 replicas.
  holding = [...engines.values()].map((e) => e.hold());
  const burst = [1, 2, 3].map(() =>
    call("/v1/chat/completions", TOKENS.admin, {
      method: "POST",
      body: { model: MODEL, messages: [{ role: "user", content: "hi" }] },
    }),
  );
  await expect(line.getByTestId("autoscale-wanted")).toHaveText(
    "wanted 3 for 3 requests in flight or queued (1 per replica)",
    { timeout: 10_000 },
  );
  await expect(line.getByTestId("autoscale-running")).toHaveText("3", { timeout: 20_000 });
  const chart = card.getByRole("img", { name: /Replicas: 3 running, 3 wanted now/ });
  await expect(chart).toBeVisible();
  await expect(chart.locator("canvas")).toBeVisible();
  await expect(card.getByTestId("traffic-key")).toContainText("replicas wanted");

  for (const release of holding.splice(0)) release();
  holding = null;
  for (const res of await Promise.all(burst)) expect(res.status).toBe(200);
  // Held for the window, said with when it may come down; then back to the floor.
  await expect(line.getByTestId("autoscale-hold")).toContainText("may scale down at", { timeout: 10_000 });
  await expect(line.getByTestId("autoscale-running")).toHaveText("1", { timeout: 30_000 });
  await expect(
    card.getByRole("img", { name: /Replicas: 1 running, 1 wanted now; between 1 and 3/ }),
  ).toBeVisible();
});

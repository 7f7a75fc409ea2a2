import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentProcess, startAgentProcess } from "@llmgw/api/testing";
import { expect, test } from "@playwright/test";
import OpenAI from "openai";
import { newSecret, signIn, startTokenServer, type TokenServer } from "./tokenServer";

// SPEC §8 seen from the dashboard: a version in the mirror, served through the wizard with one
// replica; the scheduler places it on the node of a real `llmgw agent` process, which downloads
// the file and starts a real llama.cpp on it (the test engine); the card shows the replica
// starting with its progress, then ready; a chat completion through /v1 shows as traffic on it.
// Its own server (weights-server.ts: scheduler on, the tiny llama in its mirror, tokens), since the
// one the other specs share places nothing.

const TOKENS = { admin: newSecret(), agent: newSecret() };
const NODE = "e2e-weights-node";
const MODEL = "tiny-chat";

let server: TokenServer | null = null;
let agent: AgentProcess | null = null;
let cacheDir = "";

test.beforeAll(async () => {
  // The server compiles its TypeScript and opens its store as it starts: slow on a busy machine.
  test.setTimeout(90_000);
  server = await startTokenServer(
    [
      { name: "e2e-admin", role: "admin", secret: TOKENS.admin },
      { name: "e2e-agent", role: "agent", node: NODE, secret: TOKENS.agent },
    ],
    {},
    "weights-server.ts",
  );
  cacheDir = await mkdtemp(join(tmpdir(), "llmgw-e2e-weights-cache-"));
});

test.afterAll(async () => {
  // The agent first: SIGTERM stops its engine with it.
  await agent?.stop();
  await server?.stop();
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
});

test.afterEach(async () => {
  const testInfo = test.info();
  if (agent && testInfo.status !== testInfo.expectedStatus) {
    await testInfo.attach("agent output", { body: agent.output(), contentType: "text/plain" });
  }
});

test("a mirrored version served through the wizard shows its replica's progress, then ready, then its traffic", async ({
  page,
}) => {
  // The real engine's start is waited on twice (progress, ready); loads take seconds, more on a busy machine.
  test.setTimeout(120_000);
  const base = server?.url ?? "";
  await page.goto(`${base}/`);
  await signIn(page, TOKENS.admin);

  await page.getByTestId("nav-mirror").click();
  const version = page.getByTestId("mirror-version-tiny-v1");
  await version.getByTestId("mirror-serve").click();

  const wizard = page.getByTestId("serve-wizard");
  await expect(wizard.getByTestId("serve-plan").getByTestId("plan-engine")).toHaveText("llamacpp");
  await wizard.getByTestId("serve-next").click();
  const step3 = wizard.getByTestId("serve-step-3");
  await step3.getByLabel("Name", { exact: true }).fill(MODEL);
  await step3.getByLabel("Mode", { exact: true }).selectOption("always");
  await step3.getByLabel("Replicas", { exact: true }).fill("1");
  await step3.getByLabel("Memory (GB)", { exact: true }).fill("1");
  await step3.getByLabel("Cores", { exact: true }).fill("1");
  await wizard.getByTestId("serve-next").click();
  await expect(wizard.getByTestId("serve-step-4")).toContainText(MODEL);
  await wizard.getByTestId("serve-submit").click();

  await expect(page).toHaveURL(`${base}/models?model=${MODEL}`);
  const card = page.getByTestId(`model-card-${MODEL}`);
  await expect(card).toBeVisible();
  await expect(card.getByTestId("traffic-none")).toBeVisible();

  // The node joins only now, so the card is on screen, live, before the replica starts.
  agent = startAgentProcess({
    server: base,
    node: NODE,
    token: TOKENS.agent,
    cacheDir,
  });
  // One line, polled as a whole: a starting replica on the agent's node, with its progress. Either
  // phase counts: the ~470 kB download may be over before the page draws it; the load takes seconds.
  const activity = card.getByTestId("replica-activity");
  const starting = activity
    .getByRole("listitem")
    .filter({ hasText: "starting" })
    .filter({ hasText: `on ${NODE}` })
    .getByTestId("replica-progress");
  await expect(starting).toHaveText(/^(downloading .+|loading)$/, { timeout: 60_000 });
  const seen = (await starting.textContent()) ?? "";
  test.info().annotations.push({ type: "replica progress seen", description: seen });

  const replicas = card.getByTestId("model-replicas");
  await replicas.getByText("1 replica").click();
  const row = replicas.getByRole("row").filter({ hasText: NODE });
  await expect(row.getByText("ready", { exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(activity).toHaveCount(0);

  const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: TOKENS.admin, maxRetries: 0 });
  const completion = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: "user", content: "hello" }],
    max_tokens: 8,
  });
  expect(completion.choices[0]?.message.content?.length).toBeGreaterThan(0);

  // The gateway sends traffic every second a model has some; the chart keeps the request for minutes.
  await expect(card.getByTestId("traffic-none")).toHaveCount(0);
  await expect(
    card.getByRole("img", { name: /^Requests per second over the last 5 minutes: .* peak / }),
  ).toBeVisible();
});

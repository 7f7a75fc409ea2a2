import { StandInEngine } from "@llmgw/simulation";
import { expect, test } from "@playwright/test";
import { newSecret, signIn, startTokenServer, type TokenServer } from "./tokenServer";

// SPEC §12.3 on the Tokens page: a client token made with a budget through the form shows a bar of
// its day; once it has been used through the request path, the bar and its words show the tokens
// the engine reported. Its own server (scheduler off: the agent's reported replica is the model's).

const TOKENS = { admin: newSecret(), agent: newSecret() };
const NODE = "e2e-budget-node";
const MODEL = "e2e-budgeted";
const NAME = "e2e-budget-app";

let server: TokenServer | null = null;
let engine: StandInEngine | null = null;

async function call(path: string, token: string, body: unknown) {
  return fetch(`${server?.url ?? ""}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  server = await startTokenServer(
    [
      { name: "e2e-admin", role: "admin", secret: TOKENS.admin },
      { name: "e2e-agent", role: "agent", node: NODE, secret: TOKENS.agent },
    ],
    { LLMGW_SCHEDULER: "off" },
  );
  engine = await StandInEngine.start({ model: MODEL, tokensPerSecond: 1000, replyTokens: 12 });
  const created = await call("/api/v1/models", TOKENS.admin, {
    name: MODEL,
    source: "https://example.invalid/budgeted.gguf",
    contextLength: 4096,
    scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 },
    profiles: [{ name: "cpu", engine: "llamacpp", minMemoryGB: 4, cpuCores: 2 }],
  });
  expect(created.status).toBe(201);
  const beat = await call("/api/v1/agents/heartbeat", TOKENS.agent, {
    node: { name: NODE, memoryGB: 64, cpuCount: 32, engines: ["llamacpp"] },
    replicas: [{ id: "e2e-budget-1", model: MODEL, state: "ready", endpoint: engine.url }],
  });
  expect(beat.status).toBe(200);
});

test.afterAll(async () => {
  await engine?.close();
  await server?.stop();
});

test("a client token's budget shows as a bar of the tokens used today", async ({ page }) => {
  await page.goto(`${server?.url ?? ""}/`);
  await signIn(page, TOKENS.admin);
  await page.getByTestId("nav-tokens").click();
  await page.getByTestId("token-add").click();
  const form = page.getByTestId("token-form");
  await form.getByLabel("Name").fill(NAME);
  await form.getByLabel("Role").selectOption("client");
  await form.getByLabel("Tokens a day").fill("0");
  await form.getByTestId("token-create").click();
  await expect(form.getByTestId("field-tokensPerDay").getByTestId("field-error")).toContainText("at least 1");
  await form.getByLabel("Tokens a day").fill("1000");
  await form.getByTestId("token-create").click();
  const secret = (await page.getByTestId("token-secret-value").textContent()) ?? "";
  await page.getByTestId("token-secret-done").click();

  const bar = page.getByTestId(`token-budget-${NAME}`);
  await expect(bar).toContainText("0 of 1,000 tokens used today (0%)");
  await expect(bar.getByRole("meter")).toHaveAttribute("max", "1000");

  const res = await fetch(`${server?.url ?? ""}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: MODEL,
      max_tokens: 20,
      messages: [{ role: "user", content: "three words here" }],
    }),
  });
  expect(res.status).toBe(200);
  const { usage } = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
  const used = usage.prompt_tokens + usage.completion_tokens;

  // Usage is written once a second: the list shows it on the next reading.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId(`token-budget-${NAME}`)).toContainText(
      `${used} of 1,000 tokens used today (${Math.round(used / 10)}%)`,
      { timeout: 1_000 },
    );
  }).toPass({ timeout: 15_000 });
  await expect(page.getByTestId(`token-budget-${NAME}`).getByRole("meter")).toHaveAttribute(
    "value",
    String(used),
  );
});

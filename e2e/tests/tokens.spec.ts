import AxeBuilder from "@axe-core/playwright";
import { connect } from "@llmgw/client";
import { expect, test } from "@playwright/test";
import { newSecret, signIn, startTokenServer, type TokenServer } from "./tokenServer";

// The Tokens page (admins only), against a server WITH tokens from llmgw.yaml, started here as a
// child process (auth-server.ts): making a client token with limits, its secret shown once,
// revoking it; a viewer sees neither the page's link nor its contents.

const TOKENS = { admin: newSecret(), viewer: newSecret() };
const names = { admin: "e2e-admin", viewer: "e2e-viewer" } as const;

let server: TokenServer | null = null;
let base = "";

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  server = await startTokenServer([
    { name: names.admin, role: "admin", secret: TOKENS.admin },
    { name: names.viewer, role: "viewer", secret: TOKENS.viewer },
  ]);
  base = server.url;
});

test.afterAll(async () => {
  await server?.stop();
});

test("an admin makes a client token with limits, sees its secret once, and revokes it", async ({ page }) => {
  await page.goto(`${base}/`);
  await signIn(page, TOKENS.admin);
  await page.getByTestId("nav-tokens").click();
  await expect(page.getByRole("heading", { name: "Tokens", level: 1 })).toBeVisible();
  await expect(page.getByTestId(`token-row-${names.viewer}`)).toContainText("read-only");

  await page.getByTestId("token-add").click();
  const form = page.getByTestId("token-form");
  await form.getByLabel("Name").fill("e2e-app");
  await form.getByLabel("Role").selectOption("client");
  await form.getByLabel("Models").fill("chat, embed, chat");
  await form.getByLabel("Requests a minute").fill("60");
  await form.getByLabel("Requests at once").fill("2");
  await form.getByTestId("token-create").click();
  await expect(form.getByTestId("field-models").getByTestId("field-error")).toContainText(
    "chat is listed twice",
  );

  await form.getByLabel("Models").fill("chat, embed");
  await form.getByTestId("token-create").click();
  const shown = page.getByTestId("token-secret-value");
  await expect(shown).toHaveText(/^llmgw_[A-Za-z0-9_-]{43}$/);
  const token = (await shown.textContent()) ?? "";
  const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21aa"]).analyze();
  expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);
  await page.getByTestId("token-secret-done").click();
  await expect(page.getByTestId("token-secret")).toHaveCount(0);

  const row = page.getByTestId("token-row-e2e-app");
  await expect(row).toContainText("client");
  await expect(row).toContainText("chat, embed; limits: 60 a minute, 2 at once");
  await expect(page.getByText(token)).toHaveCount(0);
  // A client token is for the gateway: the API refuses it while it lives, and as unknown once revoked.
  const asClient = connect({ server: base, token }).api;
  expect((await asClient.models.$get()).status).toBe(403);

  await row.getByTestId("token-revoke-e2e-app").click();
  await row.getByTestId("token-revoke-confirm-e2e-app").click();
  await expect(row).toHaveCount(0);
  expect((await asClient.models.$get()).status).toBe(401);
});

test("a viewer has no Tokens link, and the address shows why instead of the list", async ({ page }) => {
  await page.goto(`${base}/`);
  await signIn(page, TOKENS.viewer);
  await expect(page.getByTestId("nav-quotas")).toBeVisible();
  await expect(page.getByTestId("nav-tokens")).toHaveCount(0);

  await page.goto(`${base}/tokens`);
  await expect(page.getByTestId("tokens-forbidden")).toContainText("needs an admin token");
  await expect(page.getByTestId("token-table")).toHaveCount(0);
});

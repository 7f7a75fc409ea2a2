import AxeBuilder from "@axe-core/playwright";
import { connect } from "@llmgw/client";
import type { ModelView } from "@llmgw/domain";
import { expect, type Page, test } from "@playwright/test";
import { modelInput } from "./fixtures";
import { newSecret, signIn, startTokenServer, type TokenServer } from "./tokenServer";

// Signing in, out and back in, against a server WITH tokens (the other specs use one without):
// started here as a child process on a port of its own, with sessions that end after 8 s idle.

const TTL_SECONDS = 8;
const TOKENS = { operator: newSecret(), viewer: newSecret() };
const names = { operator: "e2e-operator", viewer: "e2e-viewer" } as const;

let server: TokenServer | null = null;
let base = "";
let model = "";

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  server = await startTokenServer(
    [
      { name: names.operator, role: "operator", secret: TOKENS.operator },
      { name: names.viewer, role: "viewer", secret: TOKENS.viewer },
    ],
    { LLMGW_SESSION_TTL_SECONDS: String(TTL_SECONDS) },
  );
  base = server.url;
  const { api, answer } = connect({ server: base, token: TOKENS.operator });
  model = (await answer(api.models.$post({ json: modelInput() }))).name;
});

test.afterAll(async () => {
  await server?.stop();
});

/** Fails the test on any Content-Security-Policy violation: the built page must run under it. */
function watchCsp(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

/** Serious or critical accessibility violations, by rule (the sign-in is a screen like the others). */
async function axeBlocking(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21aa", "wcag22aa"])
    .analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test("a page asks for a token, refuses a wrong one, then shows the page that was asked for", async ({
  page,
}) => {
  const csp = watchCsp(page);
  await page.goto(`${base}/quotas`);

  await expect(page.getByRole("heading", { name: "Sign in to llmgw" })).toBeVisible();
  // The command to make a token reads as code, not as Markdown's backticks.
  const hint = page.getByTestId("field-token").locator(".field-hint");
  await expect(hint).toHaveText("An llmgw token (llmgw_…) from your admin, or from llmgw ctl token create.");
  await expect(hint.locator("code")).toHaveText(["llmgw_…", "llmgw ctl token create"]);
  expect(await axeBlocking(page)).toEqual([]);
  await signIn(page, newSecret());
  await expect(page.getByTestId("field-token").getByTestId("field-error")).toHaveText(/not valid/);

  await signIn(page, TOKENS.operator);

  await expect(page.getByRole("heading", { name: "Quotas", level: 1 })).toBeVisible();
  expect(new URL(page.url()).pathname).toBe("/quotas");
  await expect(page.getByTestId("session-name")).toHaveText(names.operator);
  await expect(page.getByTestId("session-role")).toHaveText("operator");
  const [cookie] = (await page.context().cookies()).filter((c) => c.name === "llmgw_session");
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", secure: false });
  expect(await page.evaluate(() => document.cookie)).toBe("");
  expect(csp).toEqual([]);
});

test("signing out ends the session: the sign-in comes back, and the API refuses the old cookie", async ({
  page,
}) => {
  await page.goto(`${base}/models`);
  await signIn(page, TOKENS.operator);
  await expect(page.getByTestId(`model-card-${model}`)).toBeVisible();
  const before = (await page.context().cookies()).find((c) => c.name === "llmgw_session")?.value ?? "";

  await page.getByTestId("sign-out").click();

  await expect(page.getByRole("heading", { name: "Sign in to llmgw" })).toBeVisible();
  await page.reload();
  await expect(page.getByRole("heading", { name: "Sign in to llmgw" })).toBeVisible();
  const replayed = await page.request.get(`${base}/api/v1/session`, {
    headers: { cookie: `llmgw_session=${before}` },
  });
  expect(replayed.status()).toBe(401);
});

test("an expired session brings the sign-in back over the page, which keeps its place and edits", async ({
  page,
}) => {
  test.setTimeout(60_000);
  await page.goto(`${base}/models?model=${model}`);
  await signIn(page, TOKENS.operator);
  const card = page.getByTestId(`model-card-${model}`);
  await card.getByLabel("Owner", { exact: true }).fill("kept-while-signed-out");

  // Nothing is asked of the server for longer than the session's idle time: it ends.
  const dialog = page.getByTestId("session-expired");
  await expect(dialog).toBeVisible({ timeout: (TTL_SECONDS + 10) * 1000 });
  expect(new URL(page.url()).search).toBe(`?model=${model}`);
  expect(await axeBlocking(page)).toEqual([]);

  await signIn(page, TOKENS.operator, dialog);

  await expect(dialog).toBeHidden();
  await expect(card.getByLabel("Owner", { exact: true })).toHaveValue("kept-while-signed-out");
  const saved = page.waitForResponse((res) => res.request().method() === "PATCH");
  await card.getByTestId("model-save").click();
  expect((await saved).status()).toBe(200);
});

test("a viewer sees no edit controls, and the API refuses the viewer's PATCH anyway (403)", async ({
  page,
}) => {
  const csp = watchCsp(page);
  await page.goto(`${base}/models?model=${model}`);
  await signIn(page, TOKENS.viewer);

  const card = page.getByTestId(`model-card-${model}`);
  await expect(card.getByTestId("model-readonly-role")).toHaveText(
    `Signed in as ${names.viewer}, a viewer: changing models needs an operator or admin token.`,
  );
  await expect(card.getByTestId("model-save")).toHaveCount(0);
  await expect(card.getByTestId("model-remove")).toHaveCount(0);
  await expect(card.getByLabel("Owner", { exact: true })).toBeDisabled();

  await page.getByTestId("nav-quotas").click();
  await expect(page.getByTestId("quota-readonly")).toBeVisible();
  await expect(page.getByTestId("quota-add")).toHaveCount(0);
  await expect(page.getByTestId("quota-edit")).toHaveCount(0);

  await page.getByTestId("nav-serve").click();
  const wizard = page.getByTestId("serve-wizard");
  await wizard.getByTestId("serve-version-tiny-llama-Q4_K_M").getByRole("radio").check();
  await wizard.getByTestId("serve-next").click();
  await wizard.getByTestId("serve-next").click();
  await wizard.getByLabel("Name", { exact: true }).fill("viewer-wants-this");
  await wizard.getByTestId("serve-next").click();
  await expect(wizard.getByTestId("serve-readonly")).toBeVisible();
  await expect(wizard.getByTestId("serve-submit")).toHaveCount(0);

  // The same browser, its session cookie, a well-formed change from the dashboard: still refused.
  const before = (await (await page.request.get(`${base}/api/v1/models/${model}`)).json()) as ModelView;
  const patch = await page.request.patch(`${base}/api/v1/models/${model}`, {
    headers: { "if-match": `"${before.version}"`, "x-requested-with": "llmgw" },
    data: { owner: "a-viewer-was-here" },
  });
  expect(patch.status()).toBe(403);
  expect(((await patch.json()) as { error: { code: string } }).error.code).toBe("forbidden");
  const after = (await (await page.request.get(`${base}/api/v1/models/${model}`)).json()) as ModelView;
  expect(after.version).toBe(before.version);
  expect(csp).toEqual([]);
});

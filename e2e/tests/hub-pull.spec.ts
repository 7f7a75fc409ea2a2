import { expect } from "@playwright/test";
import { blockingViolations } from "./axe";
import { test, watchRequests } from "./fixtures";

// SPEC §10.6 in the browser: "Add from Hugging Face" on the Mirror page against the stand-in Hub
// the test server runs (server.ts: e2e-hub/Tiny-GGUF, Q4_K_M of 20 MB and Q8_0 of 200 MB at 4 MB/s).
// The repo box checked by the API's own schema, the dry run's table, Pull, live progress with
// speed and time left, the version then in the serve wizard; and a slow pull cancelled.

const REPO = "e2e-hub/Tiny-GGUF";

test("a repo's quantisations are checked, one is pulled with live progress, and the wizard can serve it", async ({
  page,
}) => {
  test.setTimeout(60_000);
  const posts = watchRequests(page, "POST", "/api/v1/mirror/pulls");
  await page.goto("/mirror");
  await page.getByTestId("hub-add").click();
  const form = page.getByTestId("hub-form");

  // The browser refuses a repo that is not owner/name, with the API's words, and sends nothing.
  await form.getByTestId("hub-repo").fill("not a repo");
  await form.getByTestId("hub-check").click();
  await expect(form.getByTestId("field-hub-repo").getByTestId("field-error")).toHaveText(
    "the repo: must be owner/name: letters, digits, - _ . and no ..",
  );
  expect(posts).toHaveLength(0);

  await form.getByTestId("hub-repo").fill(REPO);
  await form.getByTestId("hub-check").click();
  const choices = form.getByTestId("hub-choices");
  await expect(choices.getByRole("row")).toHaveCount(3);
  const q4 = choices.getByTestId("hub-choice-Q4_K_M");
  const q8 = choices.getByTestId("hub-choice-Q8_0");
  await expect(q4).toContainText("19.1 MB");
  await expect(q4.getByTestId("hub-fits")).toHaveText(/^\d+ nodes?$/);
  // Both fit somewhere: the larger is the best fit, and is chosen to begin with.
  await expect(q8.getByTestId("hub-best")).toHaveText("fits best");
  await expect(q8.getByRole("radio")).toBeChecked();
  await expect(form.getByTestId("hub-commit")).toContainText("Q8_0 is the largest that fits");

  const blocking = await blockingViolations(page);
  expect(blocking, JSON.stringify(blocking, null, 2)).toEqual([]);

  await q4.getByRole("radio").check();
  await form.getByTestId("hub-pull").click();
  await expect(form).toHaveCount(0);

  const card = page.getByTestId("pull-list").locator("article", { hasText: "tiny-gguf / Q4_K_M" });
  await expect(card.getByTestId("pull-progress")).toBeVisible();
  await expect(card.getByTestId("pull-figures")).toContainText(/ MB\/s|KB\/s/, { timeout: 10_000 });
  await expect(card.getByTestId("pull-state")).toHaveText("complete", { timeout: 20_000 });

  const version = page.getByTestId("mirror-version-tiny-gguf-Q4_K_M");
  await expect(version.getByTestId("mirror-file-Tiny-Q4_K_M.gguf")).toContainText("complete");
  await version.getByTestId("mirror-serve").click();
  const wizard = page.getByTestId("serve-wizard");
  await expect(wizard.getByTestId("serve-plan").getByTestId("plan-engine")).toHaveText("llamacpp");
  await expect(wizard.getByTestId("serve-plan").getByTestId("plan-source")).toContainText(
    "/mirror/tiny-gguf/Q4_K_M/Tiny-Q4_K_M.gguf",
  );
});

test("a pull under way is cancelled from its card, and nothing of it stays in the mirror", async ({
  page,
  api,
}) => {
  test.setTimeout(60_000);
  await page.goto("/mirror");
  await page.getByTestId("hub-add").click();
  const form = page.getByTestId("hub-form");
  await form.getByTestId("hub-repo").fill(`${REPO}:Q8_0`);
  await form.getByTestId("hub-check").click();
  await expect(form.getByTestId("hub-choice-Q8_0").getByRole("radio")).toBeChecked();
  await form.getByTestId("hub-pull").click();

  const card = page.getByTestId("pull-list").locator("article", { hasText: "tiny-gguf / Q8_0" });
  await expect(card.getByTestId("pull-figures")).toContainText(/\d+ (s|min) left/, { timeout: 15_000 });
  await expect(page.getByTestId("mirror-version-tiny-gguf-Q8_0")).toContainText("downloading");
  await card.getByTestId("pull-cancel").click();
  await expect(card.getByTestId("pull-state")).toHaveText("cancelled");
  await expect(card.getByTestId("pull-cancel")).toHaveCount(0);
  await expect(page.getByTestId("mirror-version-tiny-gguf-Q8_0")).toHaveCount(0, { timeout: 10_000 });
  const mirror = await (await api.mirror.$get()).json();
  expect(mirror.some((v) => v.model === "tiny-gguf" && v.version === "Q8_0")).toBe(false);
});

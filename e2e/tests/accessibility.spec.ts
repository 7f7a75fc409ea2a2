import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";

// Each screen, and something on it that shows its data has arrived (axe should judge the page an
// operator reads, not its loading line).
const SCREENS = [
  { path: "/", ready: "capacity-card-chat-critical" },
  { path: "/models", ready: "model-card-chat-critical" },
  { path: "/serve", ready: "serve-step-1" },
  { path: "/fleet", ready: "node-card-node-a" },
  { path: "/mirror", ready: "mirror-version-llama-3.1-8b-instruct-Q4_K_M" },
  { path: "/quotas", ready: "quota-card-research" },
  { path: "/audit", ready: "audit-entry" },
] as const;

/** The serious and critical violations on the page as it is now, in words a failure can show. */
async function blockingViolations(page: Page) {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
    .analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      rule: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary ?? ""}`).slice(0, 5),
    }));
}

for (const { path, ready } of SCREENS) {
  test(`axe finds nothing serious or critical on ${path}`, async ({ page }) => {
    await page.goto(path);
    await expect(page.getByTestId(ready).first()).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: /^Loading/ })).toHaveCount(0);
    const blocking = await blockingViolations(page);
    expect(blocking, JSON.stringify(blocking, null, 2)).toEqual([]);
  });
}

test("axe finds nothing serious or critical on the wizard's settings step with its errors showing", async ({
  page,
}) => {
  await page.goto("/serve?model=llama-3.1-8b-instruct&version=Q4_K_M");
  const wizard = page.getByTestId("serve-wizard");
  await wizard.getByTestId("serve-next").click();
  const step3 = wizard.getByTestId("serve-step-3");
  await step3.getByLabel("Name", { exact: true }).fill("");
  await step3.getByLabel("Context length", { exact: true }).fill("");
  await wizard.getByTestId("serve-next").click();
  await expect(step3.getByTestId("field-error")).toHaveCount(2);
  const blocking = await blockingViolations(page);
  expect(blocking, JSON.stringify(blocking, null, 2)).toEqual([]);
});

import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { SCREENS } from "./screens";

// Every screen of the app's page table, the sign-in and "Not found" included (screens.ts).

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

for (const { name, path, ready, prepare } of SCREENS) {
  test(`axe finds nothing serious or critical on ${name} (${path})`, async ({ page }) => {
    await prepare?.(page);
    await page.goto(path);
    await expect(ready(page)).toBeVisible();
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

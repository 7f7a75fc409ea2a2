import { expect, test } from "@playwright/test";
import { blockingViolations } from "./axe";
import { SCREENS } from "./screens";

// Every screen of the app's page table, the sign-in and "Not found" included (screens.ts).

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

import { expect, test } from "@playwright/test";

test("the dashboard loads from the API's port and the API answers beside it", async ({ page, request }) => {
  const models = await request.get("/api/v1/models");
  expect(models.ok()).toBe(true);
  await page.goto("/");
  await expect(page).toHaveTitle(/llmgw/i);
});

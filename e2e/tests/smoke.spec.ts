import { answer } from "@llmgw/client";
import { expect } from "@playwright/test";
import { test } from "./fixtures";

test("the dashboard loads from the API's port and the API answers beside it", async ({ page, api }) => {
  await answer(api.models.$get());
  await page.goto("/");
  await expect(page).toHaveTitle(/llmgw/i);
});

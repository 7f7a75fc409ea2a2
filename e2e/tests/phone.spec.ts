import { expect, test } from "@playwright/test";
import { SCREENS } from "./screens";

// A phone's width (iPhone X/11 Pro class). The screenshots go to test-results (git-ignored) and
// are attached to the report, for a person to look at.
test.use({ viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true });

// Every screen of the app's page table, the sign-in and "Not found" included (screens.ts).
for (const { name, path, ready, prepare } of SCREENS) {
  const shot = `${name.toLowerCase().replace(/\W+/g, "-")}-375x812`;
  test(`${name} (${path}) fits a phone's width and is captured`, async ({ page }, testInfo) => {
    await prepare?.(page);
    await page.goto(path);
    await expect(ready(page)).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: /^Loading/ })).toHaveCount(0);

    // Nothing wider than the screen: the page does not scroll sideways.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // Cards take the screen's width rather than a desktop column.
    for (const card of await page.locator("main .card").all()) {
      const box = await card.boundingBox();
      expect(box?.width ?? 0).toBeGreaterThan(300);
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(375);
    }

    // What the phone shows first, and the whole page scrolled through.
    for (const [suffix, fullPage] of [
      ["", false],
      ["-full", true],
    ] as const) {
      const file = testInfo.outputPath(`${shot}${suffix}.png`);
      await page.screenshot({ path: file, fullPage });
      await testInfo.attach(`${shot}${suffix}`, { path: file, contentType: "image/png" });
    }
  });
}

test("a table wider than the phone shades the side where more of it is, and follows the scroll", async ({
  page,
}) => {
  await page.goto("/audit");
  await expect(page.getByTestId("audit-entry").first()).toBeVisible();
  const frame = page.locator(".table-scroll-frame").first();
  const region = frame.getByRole("region", { name: "Audit log" });
  expect(await region.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);

  await expect(frame).toHaveAttribute("data-more-right", "true");
  await expect(frame).not.toHaveAttribute("data-more-left");
  await region.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
  await expect(frame).toHaveAttribute("data-more-left", "true");
  await expect(frame).not.toHaveAttribute("data-more-right");
});

test("names keep their hyphens on one line: card titles and a table's names", async ({ page }) => {
  /** How many lines an element's text takes. */
  const lines = (el: Element) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  };
  for (const path of ["/mirror", "/models", "/quotas"]) {
    await page.goto(path);
    const titles = page.locator("main .card-title");
    await expect(titles.first()).toBeVisible();
    for (const title of await titles.all()) {
      if ((await title.textContent())?.includes("-")) expect(await title.evaluate(lines)).toBe(1);
    }
  }
  const rowNames = page.locator('.table-scroll th[scope="row"]');
  await expect(rowNames.first()).toBeVisible();
  for (const name of await rowNames.all()) expect(await name.evaluate(lines)).toBe(1);
});

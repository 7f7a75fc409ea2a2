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

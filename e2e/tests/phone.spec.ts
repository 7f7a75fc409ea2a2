import { expect, test } from "@playwright/test";

// A phone's width (iPhone X/11 Pro class). The screenshots go to test-results (git-ignored) and
// are attached to the report, for a person to look at.
test.use({ viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true });

const PAGES = [
  { path: "/", ready: "capacity-card-chat-critical", shot: "capacity-375x812" },
  { path: "/models", ready: "model-card-chat-critical", shot: "models-375x812" },
] as const;

for (const { path, ready, shot } of PAGES) {
  test(`${path} fits a phone's width and is captured`, async ({ page }, testInfo) => {
    await page.goto(path);
    await expect(page.getByTestId(ready)).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: /^Loading/ })).toHaveCount(0);

    // Nothing wider than the screen: the page does not scroll sideways.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // Cards take the screen's width rather than a desktop column.
    const card = await page.getByTestId(ready).boundingBox();
    expect(card?.width ?? 0).toBeGreaterThan(300);
    expect((card?.x ?? 0) + (card?.width ?? 0)).toBeLessThanOrEqual(375);

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

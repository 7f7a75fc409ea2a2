import { expect } from "@playwright/test";
import { gotoLive, test, watchRequests } from "./fixtures";

// Issue 18, item 3's first-run guide needs the mirror's info (its directory, misplaced files),
// which no event announces, so it is polled; only where it is needed. On the shared server the
// fleet is not empty (weights, nodes and models), so Capacity and Fleet show no guide and ask
// for none of it, however long they stay open; the Mirror page, which lists misplaced files, does.
// The page's clock is Playwright's, run forward: no test waits for the real seconds to pass.

test("a loaded fleet's Capacity and Fleet never ask for the mirror's info; the Mirror page does, again", async ({
  page,
}) => {
  await page.clock.install();
  const asked = watchRequests(page, "GET", "/api/v1/mirror/info");

  for (const [path, shown] of [
    ["/", "capacity-count"],
    ["/fleet", "nodes-count"],
  ] as const) {
    await gotoLive(page, path);
    await expect(page.getByTestId(shown)).toBeVisible();
    await expect(page.getByTestId("first-run")).toHaveCount(0);
    await page.clock.runFor(30_000);
  }
  expect(asked).toHaveLength(0);

  // Each ask answered before the clock moves on (one still in flight would be asked only once).
  let answered = 0;
  page.on("requestfinished", (req) => {
    if (new URL(req.url()).pathname === "/api/v1/mirror/info") answered += 1;
  });
  await gotoLive(page, "/mirror");
  await expect.poll(() => answered).toBe(1);
  await page.clock.runFor(5_500);
  await expect.poll(() => answered).toBeGreaterThanOrEqual(2);
  const second = answered;
  await page.clock.runFor(5_500);
  await expect.poll(() => answered).toBeGreaterThan(second);
});

import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import {
  type Browser,
  type BrowserContextOptions,
  expect,
  type Locator,
  type Page,
  test,
} from "@playwright/test";
import type { PagePath } from "../../apps/web/src/app/pages";
import { SCREENS, type Screen } from "./screens";
import { newSecret, signIn, startTokenServer, type TokenServer } from "./tokenServer";

// Issue 18: screenshots of every screen, empty and full, at a laptop's and a phone's size, for a
// person to look at; and, on each, the layout facts a person would otherwise have to spot: the
// screen's data arrived, nothing reaches past the screen's edge outside a scroll container, no
// text is cut off by its box, nothing went wrong in the console. "Full" is the shared seeded
// server (seed.ts, and whatever the specs before this one added); "empty" is a server of its own
// with nothing in it (first-run-server.ts), signed in with an admin token.
// The PNGs go to e2e/screenshots/ (git-ignored), named <state>-<viewport>-<screen>.png.

// Ten screens, one browser each way: longer than one test's usual 30 s on a busy machine.
test.describe.configure({ timeout: 120_000 });

const OUT = fileURLToPath(new URL("../screenshots/", import.meta.url));

const VIEWPORTS = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
} satisfies Record<string, BrowserContextOptions>;

const inMain = (selector: string) => (page: Page) => page.locator(`main ${selector}`).first();
const testId = (id: string) => (page: Page) => page.getByTestId(id).first();

/** Each page's ready marker on a server with nothing: its guide or its empty line. */
const EMPTY_READY: Record<PagePath, (page: Page) => Locator> = {
  "/": testId("first-run"),
  "/models": inMain(".empty"),
  "/serve": inMain(".empty"),
  "/fleet": testId("first-run"),
  "/mirror": testId("mirror-empty"),
  "/quotas": inMain(".empty"),
  "/usage": testId("usage-empty"),
  "/audit": inMain(".empty"),
  "/tokens": testId("token-add"),
};

type Offender = { what: string; text: string; left: number; right: number };

/**
 * On a screen `width` wide: how far the page scrolls sideways, what reaches past the screen's sides outside anything that scrolls or clips it, and what text
 * its own box cuts off (wider or taller than the box, no ellipsis to say so).
 */
function layoutFaults(width: number): { overflow: number; outside: Offender[]; clipped: Offender[] } {
  const label = (el: Element) =>
    `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${
      el.getAttribute("data-testid") ? `[data-testid=${el.getAttribute("data-testid")}]` : ""
    }${typeof el.className === "string" && el.className ? `.${el.className.trim().split(/\s+/).join(".")}` : ""}`;
  const hidden = (el: Element) => {
    const style = getComputedStyle(el);
    return style.visibility === "hidden" || style.clip !== "auto" || style.clipPath !== "none";
  };
  /**
   * Inside something that scrolls or clips it sideways: up its chain of containing blocks (an
   * absolutely positioned element escapes a scroller that is not positioned, and widens the page).
   */
  const contained = (el: Element) => {
    let position = getComputedStyle(el).position;
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (position === "fixed") return false;
      if (position === "absolute" && style.position === "static") continue;
      if (style.overflowX !== "visible") return true;
      position = style.position;
    }
    return false;
  };
  const outside: Offender[] = [];
  const clipped: Offender[] = [];
  for (const el of document.body.querySelectorAll("*")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const text = (el.textContent ?? "").trim().slice(0, 60);
    // Hidden or not, what sticks out widens the page.
    if ((box.right > width + 0.5 || box.left < -0.5) && !contained(el)) {
      outside.push({ what: label(el), text, left: Math.round(box.left), right: Math.round(box.right) });
    }
    if (hidden(el)) continue;
    const style = getComputedStyle(el);
    const ownText = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim());
    const cuts = style.overflowX === "hidden" || style.overflowX === "clip";
    if (
      ownText &&
      cuts &&
      style.textOverflow !== "ellipsis" &&
      (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
    ) {
      clipped.push({ what: label(el), text, left: Math.round(box.left), right: Math.round(box.right) });
    }
  }
  return { overflow: document.documentElement.scrollWidth - width, outside, clipped };
}

type State = "empty" | "full";

/** Walks every screen in one browser of `viewport`'s size; `signInWith`: the server has tokens. */
async function walk(
  browser: Browser,
  state: State,
  viewportName: keyof typeof VIEWPORTS,
  baseURL: string,
  signInWith: string | null,
) {
  await mkdir(OUT, { recursive: true });
  const context = await browser.newContext({ ...VIEWPORTS[viewportName], baseURL });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`${page.url()}: ${error.message}`));
  page.on("console", (message) => {
    // A 401 is how a server with tokens says "sign in": the sign-in screen is made of them.
    if (message.type() === "error" && !/status of 401/.test(message.text())) {
      errors.push(`${page.url()}: ${message.text()}`);
    }
  });
  const screens: Screen[] = SCREENS.map((screen) => {
    if (state === "full") return screen;
    // The empty server has tokens: signed out is how it starts, and the sign-in it shows is real.
    if (screen.name === "Sign in") return { ...screen, prepare: undefined };
    // "Not found" is no page: its own marker holds.
    const ready: ((page: Page) => Locator) | undefined = (EMPTY_READY as Record<string, Screen["ready"]>)[
      screen.path
    ];
    return ready ? { ...screen, ready } : screen;
  });
  // The sign-in first, while still signed out; then in, for the rest.
  screens.sort((a, b) => Number(b.name === "Sign in") - Number(a.name === "Sign in"));
  let signedIn = false;
  for (const { name, path, ready, prepare } of screens) {
    await test.step(`${name} (${path})`, async () => {
      if (signInWith && !signedIn && name !== "Sign in") {
        await page.goto("/");
        await signIn(page, signInWith);
        await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
        signedIn = true;
      }
      const screenPage = prepare ? await context.newPage() : page;
      if (prepare) {
        screenPage.on("pageerror", (error) => errors.push(`${path}: ${error.message}`));
        await prepare(screenPage);
      }
      await screenPage.goto(path);
      await expect(ready(screenPage)).toBeVisible();
      await expect(screenPage.getByRole("status").filter({ hasText: /^Loading/ })).toHaveCount(0);
      // Fonts and the charts' first frame, so the picture is the one a person sees.
      await screenPage.evaluate(() => document.fonts.ready.then(() => undefined));
      const slug = name.toLowerCase().replace(/\W+/g, "-");
      await screenPage.screenshot({ path: `${OUT}${state}-${viewportName}-${slug}.png`, fullPage: true });
      // The size asked for, not innerWidth: a phone's browser widens its layout to what overflows.
      const faults = await screenPage.evaluate(layoutFaults, VIEWPORTS[viewportName].viewport.width);
      expect.soft(faults.overflow, `${name}: the page scrolls sideways`).toBeLessThanOrEqual(0);
      expect.soft(faults.outside, `${name}: past the screen's edge`).toEqual([]);
      expect.soft(faults.clipped, `${name}: text cut off by its box`).toEqual([]);
      if (prepare) await screenPage.close();
    });
  }
  expect(errors, "console errors").toEqual([]);
  await context.close();
}

test.describe("full: the seeded server", () => {
  for (const viewport of ["desktop", "phone"] as const) {
    test(`every screen at ${viewport} size, captured`, async ({ browser, baseURL }) => {
      await walk(browser, "full", viewport, baseURL ?? "", null);
    });
  }
});

test.describe("empty: a server with nothing", () => {
  const ADMIN = newSecret();
  let server: TokenServer | null = null;
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    server = await startTokenServer(
      [{ name: "e2e-admin", role: "admin", secret: ADMIN }],
      {},
      "first-run-server.ts",
    );
  });
  test.afterAll(async () => {
    await server?.stop();
  });
  for (const viewport of ["desktop", "phone"] as const) {
    test(`every screen at ${viewport} size, captured`, async ({ browser }) => {
      await walk(browser, "empty", viewport, server?.url ?? "", ADMIN);
    });
  }
});

import type { Locator, Page } from "@playwright/test";
import { PAGES, type PagePath, VIEWS, type ViewName } from "../../apps/web/src/app/pages";

// Every screen of the dashboard, from its own page table (apps/web/src/app/pages.ts): each page,
// then the views that are no page (the sign-in, "Not found"). The accessibility and phone specs
// walk this list, so a page added to the app is checked there too; until it has a ready marker
// below it fails the type check, and its tests fail naming it.

export type Screen = {
  name: string;
  path: string;
  /** Something that shows the screen's data has arrived: axe should judge what an operator reads. */
  ready(page: Page): Locator;
  /** What the browser needs before it goes to `path`. */
  prepare?(page: Page): Promise<void>;
};

const testId = (id: string) => (page: Page) => page.getByTestId(id).first();
/**
 * The first card a virtualised list draws, whatever its name: other specs add nodes and models
 * to the same server, and a seed card further down a phone's screen is not drawn at all.
 */
const firstCard = (prefix: string) => (page: Page) => page.locator(`[data-testid^="${prefix}"]`).first();

/** Each page's ready marker, on seed.ts's fleet. */
const READY: Record<PagePath, (page: Page) => Locator> = {
  "/": testId("capacity-card-chat-critical"),
  "/models": firstCard("model-card-"),
  "/serve": testId("serve-step-1"),
  "/fleet": firstCard("node-card-"),
  "/mirror": testId("mirror-version-llama-3.1-8b-instruct-Q4_K_M"),
  "/quotas": testId("quota-card-research"),
  // The seed's fleet has ready replicas: replica-hours show within seconds, without any request.
  "/usage": testId("usage-table"),
  "/audit": testId("audit-entry"),
  // The e2e server has no tokens to list; in open mode everyone may make one.
  "/tokens": testId("token-add"),
};

/** The e2e server runs without tokens; a 401 to "who am I" is what a server with them answers first. */
async function signedOut(page: Page): Promise<void> {
  await page.route("**/api/v1/session", (route) =>
    route.fulfill({
      status: 401,
      contentType: "application/json",
      headers: { "www-authenticate": 'Bearer realm="llmgw"' },
      body: JSON.stringify({ error: { code: "unauthorized", message: "sign in with a token" } }),
    }),
  );
}

const VIEW_SCREENS: Record<ViewName, Omit<Screen, "name">> = {
  "sign-in": { path: "/models", prepare: signedOut, ready: testId("sign-in-form") },
  "not-found": {
    path: "/no-such-page",
    ready: (page) => page.getByRole("heading", { level: 1, name: "Not found" }),
  },
};

const unmarked = (what: string) => () => {
  throw new Error(`${what} has no ready marker in e2e/tests/screens.ts`);
};

export const SCREENS: readonly Screen[] = [
  ...PAGES.map(({ path, label }) => ({ name: label, path, ready: READY[path] ?? unmarked(`page ${path}`) })),
  ...VIEWS.map(({ view, label }) => ({
    name: label,
    ...(VIEW_SCREENS[view] ?? { path: "/", ready: unmarked(`view ${view}`) }),
  })),
];

import { defineConfig } from "@playwright/test";
import base from "./playwright.config";

// `pnpm --filter @llmgw/e2e screenshots`: tests/screenshots.spec.ts alone, which writes a PNG of
// every screen, empty and full, at a laptop's and a phone's size to screenshots/ (git-ignored) and
// checks each one's layout. Too slow for every `pnpm test` (40 pictures and a second server: about
// two minutes on a busy machine), so the normal run leaves it out (testIgnore there).
export default defineConfig({
  ...base,
  testIgnore: undefined,
  testMatch: /screenshots\.spec\.ts$/,
  projects: [{ name: "pglite" }],
});

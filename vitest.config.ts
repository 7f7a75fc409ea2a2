import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "apps/*/src/**/*.test.ts",
      "apps/*/test/**/*.test.ts",
    ],
    // One line per run saying how to include the PostgreSQL cases when they are skipped.
    globalSetup: ["scripts/vitest-postgres.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

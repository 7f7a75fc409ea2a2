import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * The API and CLI suites: every test file that builds its server through the suites' harnesses
 * (`useApi`, `useGateway`, `useCtl`). Found by what the files say, not listed by hand, so a new
 * suite runs on both stores without anyone remembering to add it.
 */
function storeSuites(): string[] {
  const uses = /\buse(Api|Gateway|Ctl)\(/;
  return ["apps/api/test", "apps/cli/test"].flatMap((dir) =>
    readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".test.ts"))
      .map((file) => join(dir, file))
      .filter((file) => uses.test(readFileSync(file, "utf8"))),
  );
}

export default defineConfig({
  test: {
    // One line per run saying how to include the PostgreSQL cases when they are skipped.
    globalSetup: ["scripts/vitest-postgres.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "pglite",
          include: [
            "packages/*/src/**/*.test.ts",
            "packages/*/test/**/*.test.ts",
            "apps/*/src/**/*.test.ts",
            "apps/*/test/**/*.test.ts",
            "test/**/*.test.ts",
          ],
          env: { LLMGW_TEST_STORE: "pglite" },
        },
      },
      {
        // The same suites again on PostgreSQL (a fresh database per file), reported as skipped
        // without TEST_DATABASE_URL so the totals are the same either way.
        extends: true,
        test: {
          name: "postgres",
          include: storeSuites(),
          env: { LLMGW_TEST_STORE: "postgres" },
          runner: "scripts/vitest-postgres-runner.ts",
        },
      },
    ],
  },
});

import { defineConfig } from "@playwright/test";

const port = Number(process.env.LLMGW_E2E_PORT ?? 4599);
export const baseURL = `http://127.0.0.1:${port}`;
/** The same server on PostgreSQL, for the flows that run on both stores (only with TEST_DATABASE_URL). */
const postgresPort = port + 1;
const onPostgres = (process.env.TEST_DATABASE_URL ?? "") !== "";

const server = (listen: number, store: "pglite" | "postgres") => ({
  command: `node --import tsx server.ts`,
  url: `http://127.0.0.1:${listen}/healthz`,
  // The tests post heartbeats as the agents would; with placement off, the replicas they
  // report are the fleet, so a card's numbers are the ones each test sets up.
  env: { LLMGW_E2E_PORT: String(listen), LLMGW_SCHEDULER: "off", LLMGW_E2E_STORE: store },
  reuseExistingServer: false,
  timeout: 60_000,
  // SIGTERM rather than SIGKILL, so the server removes its temporary store and mirror.
  gracefulShutdown: { signal: "SIGTERM" as const, timeout: 5_000 },
  stdout: "pipe" as const,
});

// Debian's Chromium: Playwright's own browser download cannot be fetched here. The background
// networking flags keep it from dialling out of a machine with no network.
export default defineConfig({
  testDir: "./tests",
  // Screenshots of every screen: a script of their own (screenshots.config.ts), not every run's.
  testIgnore: /screenshots\.spec\.ts$/,
  timeout: 30_000,
  expect: { timeout: 5_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  // pnpm test asks for a JSON report too (PLAYWRIGHT_JSON_OUTPUT_NAME) for its closing totals.
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [["list"], ["json"]] : [["list"]],
  outputDir: "./test-results",
  use: {
    baseURL,
    viewport: { width: 1280, height: 800 },
    trace: "off",
    launchOptions: {
      executablePath: process.env.LLMGW_CHROMIUM ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [
    { name: "pglite" },
    {
      // The smoke and serve-wizard flows again against a server on PostgreSQL; reported as skipped
      // without TEST_DATABASE_URL (tests/fixtures.ts), so the totals are the same either way.
      name: "postgres",
      testMatch: /(smoke|serve-wizard)\.spec\.ts$/,
      use: { baseURL: `http://127.0.0.1:${postgresPort}` },
    },
  ],
  webServer: [server(port, "pglite"), ...(onPostgres ? [server(postgresPort, "postgres")] : [])],
});

import { keyOf } from "@llmgw/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createApp } from "../src/app";
import { type App, useApi } from "./harness";
import { BODY_ROUTES } from "./security-bodies";
import { bodyEndpoints } from "./security-fuzz";
import { fuzz } from "./security-fuzz-run";
import { WRONG } from "./security-fuzz-values";
import { dashboardDir, endpointsOf, removeDashboard, tokensYaml } from "./security-kit";

// OWASP API8 (misconfiguration) and API4 (unbounded input), by property: thousands of generated bad
// requests over every endpoint. `pnpm fuzz` (scripts/fuzz.ts) sends 10,000 the same way.

const RUNS = 2500;
const api = useApi({ yaml: tokensYaml() });
let app: App;

beforeAll(() => {
  app = createApp(api.deps, api.control, { webDist: dashboardDir(), heartbeatsPer10s: 100_000 });
});
afterAll(removeDashboard);

it("breaks the body of every route that takes one, each with wrong values of its own", () => {
  const fuzzed = bodyEndpoints(endpointsOf(app)).map((e) => e.key);

  expect([...fuzzed].sort()).toEqual(BODY_ROUTES.map(keyOf).sort());
  expect(
    fuzzed.filter((key) => !WRONG[key]),
    "add them to test/security-fuzz-values.ts",
  ).toEqual([]);
});

it(`refuses ${RUNS} generated bad requests cleanly and stores nothing from them`, {
  timeout: 300_000,
}, async () => {
  const seed = process.env.LLMGW_FUZZ_SEED ? Number(process.env.LLMGW_FUZZ_SEED) : undefined;
  const { stats, before, after } = await fuzz(app, api.deps, api.control, RUNS, seed);

  expect(stats.requests).toBeGreaterThanOrEqual(2000);
  expect(Object.keys(stats.statuses).filter((status) => Number(status) >= 500)).toEqual([]);
  expect(after, "the refused requests changed the store").toBe(before);
  // Kinds and statuses, so a run shows what it exercised (the report quotes these).
  console.info(
    `fuzz: ${stats.requests} requests; statuses ${JSON.stringify(stats.statuses)}; kinds ${JSON.stringify(stats.kinds)}`,
  );
});

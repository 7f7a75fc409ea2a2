// `pnpm test`: type check, lint, unit and API tests (Vitest), browser tests (Playwright), then
// one closing line with the totals of both runners, so CI reads one count for the whole suite.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";

const results = ".tmp/test-results";
rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });

function run(label, command, args, env = {}) {
  console.log(`\n▶ ${label}: ${command} ${args.join(" ")}`);
  const { status } = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  return status === 0;
}

function readJson(path) {
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : null;
}

const steps = [
  ["type check", "pnpm", ["--silent", "typecheck"]],
  ["lint", "pnpm", ["--silent", "lint"]],
  [
    "unit and API tests",
    "pnpm",
    ["exec", "vitest", "run", "--reporter=default", "--reporter=json", `--outputFile=${results}/vitest.json`],
  ],
  [
    "browser tests",
    "pnpm",
    ["--filter", "@llmgw/e2e", "test"],
    { PLAYWRIGHT_JSON_OUTPUT_NAME: `${process.cwd()}/${results}/playwright.json` },
  ],
];

let ok = true;
for (const [label, command, args, env] of steps) {
  if (!ok) break;
  ok = run(label, command, args, env);
  if (!ok) console.error(`\n✗ ${label} failed`);
}

const vitest = readJson(`${results}/vitest.json`);
const playwright = readJson(`${results}/playwright.json`);
const passed =
  (vitest?.numPassedTests ?? 0) + (playwright?.stats?.expected ?? 0) + (playwright?.stats?.flaky ?? 0);
const failed = (vitest?.numFailedTests ?? 0) + (playwright?.stats?.unexpected ?? 0);
const skipped =
  (vitest?.numPendingTests ?? 0) + (vitest?.numTodoTests ?? 0) + (playwright?.stats?.skipped ?? 0);
// The totals line only when every step ran: a type or lint failure has no test count to report.
if (ok || failed > 0) console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(ok && failed === 0 ? 0 : 1);

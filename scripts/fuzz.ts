// `pnpm fuzz`: 10,000 generated bad requests (broken bodies, hostile paths, queries and headers,
// absurd heartbeats, random methods) against the API in-process, with a token of every role
// configured. Fails (exit 1) on a 5xx, a refusal outside the error shape, an accepted change, or
// any difference in the store afterwards. `--runs N` and `--seed S` (from a failure) replay.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createApp } from "../apps/api/src/app";
import { loadConfig } from "../apps/api/src/config";
import { Control } from "../apps/api/src/control/control";
import { openDeps } from "../apps/api/src/openDeps";
import { fuzz } from "../apps/api/test/security-fuzz-run";
import { dashboardDir, tokensYaml } from "../apps/api/test/security-kit";

const { values } = parseArgs({ options: { runs: { type: "string" }, seed: { type: "string" } } });
const runs = Number(values.runs ?? 10_000);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);

const root = await mkdtemp(join(tmpdir(), "llmgw-fuzz-"));
const file = join(root, "llmgw.yaml");
await writeFile(file, tokensYaml());
const deps = await openDeps(loadConfig({ config: file, dataDir: root }, {}), { inMemory: true });
const started = performance.now();
let failed = false;
try {
  const control = new Control(deps);
  const app = createApp(deps, control, { webDist: dashboardDir() });
  const { stats, before, after } = await fuzz(app, deps, control, runs, seed);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`requests  ${stats.requests} in ${seconds} s (seed ${seed})`);
  console.log(
    `statuses  ${Object.entries(stats.statuses)
      .map(([s, n]) => `${s}×${n}`)
      .join("  ")}`,
  );
  console.log(
    `kinds     ${Object.entries(stats.kinds)
      .map(([k, n]) => `${k}×${n}`)
      .join("  ")}`,
  );
  const fivexx = Object.keys(stats.statuses).filter((s) => Number(s) >= 500);
  if (fivexx.length > 0) throw new Error(`server errors: ${fivexx.join(", ")}`);
  if (after !== before) throw new Error("the store changed during the refused requests");
  console.log("store     unchanged, byte for byte");
} catch (err) {
  failed = true;
  const cause = err instanceof Error && err.cause instanceof Error ? `\n${err.cause.message}` : "";
  console.error(
    `fuzz failed (replay with --seed ${seed}):\n${err instanceof Error ? err.message : String(err)}${cause}`,
  );
} finally {
  await deps.store.close();
  await rm(root, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

// `pnpm crash`: kills the real `llmgw serve` with SIGKILL during a write load and starts it again,
// N times (default 50), then checks that every acknowledged write survived and nothing is half
// written. `--kills N`; `--postgres URL` runs on a fresh database on that server instead of PGlite.
import { parseArgs } from "node:util";
import { runCrash } from "../apps/api/test/crash-run";

const { values } = parseArgs({ options: { kills: { type: "string" }, postgres: { type: "string" } } });
const kills = Number(values.kills ?? 50);
const started = performance.now();
const report = await runCrash({ kills, postgres: values.postgres ?? null, log: (line) => console.log(line) });
const { creates, patches, heartbeats } = report.acknowledged;
const starts = [...report.startMs].sort((a, b) => a - b);
console.log(
  `${report.kills} kills in ${Math.round((performance.now() - started) / 1000)} s (${values.postgres ? "PostgreSQL" : "PGlite"}): ` +
    `acknowledged ${creates} creates, ${patches} patches, ${heartbeats} heartbeats; ` +
    `${report.checks} acknowledged-write checks; ${report.unanswered} writes cut off by a kill; ` +
    `restart median ${starts[Math.floor(starts.length / 2)] ?? 0} ms`,
);
for (const problem of report.problems) console.log(`PROBLEM ${problem}`);
process.exit(report.problems.length === 0 ? 0 : 1);

// `pnpm bench`: the figures issue 8 asks for, each beside the peer it is compared with (measured
// in the same run) and its aim. The suites live beside it, in scripts/bench/ (@llmgw/bench); BENCH=<regular expression> runs
// only the benches whose names match, e.g. BENCH='schedule|models'. Figures on a shared machine
// are noisy: read them beside the calibration row and the load average printed with them.
import { load, machine, type Row } from "./report";

type Suite = { names: readonly string[]; run: (only: RegExp | null) => Promise<Row[]> };
const suites: Array<() => Promise<Suite>> = [
  () => import("./domain"),
  () => import("./http"),
  () => import("./sse"),
  () => import("./heartbeats"),
  () => import("./firstBeats"),
  () => import("./scale"),
  () => import("./gateway"),
  () => import("./promptRouting"),
  () => import("./promptRoutingProcesses"),
  () => import("./coldStart"),
  () => import("./demoIdle"),
  () => import("./autoscale"),
  () => import("./web"),
  () => import("./browser"),
  () => import("./dashboardScale"),
  () => import("./store"),
  () => import("./load"),
  () => import("./hubPull"),
  () => import("./join"),
  // rollout (issue 38)
  () => import("./rollout"),
  // usage (issue 39), and what counting and a budget cost on the request path
  () => import("./usage"),
  () => import("./budget"),
];

/** How fast this machine is right now: compare figures across machines and runs by this. */
function calibrate(): number {
  const times: number[] = [];
  for (let run = 0; run < 7; run++) {
    const start = performance.now();
    let sum = 0;
    for (let i = 0; i < 10_000_000; i++) sum += i % 7;
    times.push(performance.now() - start + (sum === -1 ? 1 : 0));
  }
  return Math.min(...times);
}

const only = process.env.BENCH ? new RegExp(process.env.BENCH) : null;
console.log(`machine: ${machine()}, load ${load()}, ${new Date().toISOString()}`);
console.log(`calibration (10M-step loop, fastest of 7): ${calibrate().toFixed(1)} ms`);
const rows: Row[] = [];
for (const loadSuite of suites) {
  const suite = await loadSuite();
  if (only && !suite.names.some((name) => only.test(name))) continue;
  rows.push(...(await suite.run(only)));
  console.log(`load ${load()}`);
}
console.log(`\nsummary (load ${load()}, calibration ${calibrate().toFixed(1)} ms):`);
console.table(
  rows.map((r) => ({
    ...r,
    peer: r.peer ?? "—",
    ratio: r.ratio ?? "—",
    met: r.met === null ? "—" : r.met ? "yes" : "NO",
  })),
);

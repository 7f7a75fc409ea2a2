// `llmgw demo` left alone, as a newcomer leaves it after the first look: the CPU the whole demo
// process uses (server, a dozen simulated agents and their engines, the mirror) a minute after it
// is ready, read from /proc in three windows, beside an idle `llmgw serve` with nothing to do,
// started at the same time. Both run as `pnpm llmgw` runs them (the bundled CLI).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cpuMsOf, median, type Row } from "./report";

export const names = ["demo idle"];
const SETTLE_MS = Number(process.env.BENCH_DEMO_SETTLE_MS ?? 60_000);
const WINDOW_MS = 10_000;
const WINDOWS = 3;
/** Issue 31: the idle demo uses at most this share of a core. */
const AIM = 0.05;

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function llmgw(args: string[]): { proc: ChildProcess; ready: Promise<void> } {
  const env = { ...process.env };
  for (const key of ["LLMGW_CONFIG", "LLMGW_LISTEN", "LLMGW_DATA_DIR", "DATABASE_URL"]) delete env[key];
  const proc = spawn(process.execPath, ["scripts/llmgw.mjs", ...args, "--log-format", "json"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = new Promise<void>((resolve, reject) => {
    let out = "";
    proc.once("exit", (code) => reject(new Error(`llmgw ${args[0]} exited with ${code}`)));
    proc.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('"msg":"llmgw ready on')) resolve();
    });
  });
  return { proc, ready };
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.kill("SIGTERM");
  await exited;
}

const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
const range = (xs: number[]) => `${pct(median(xs))} (${pct(Math.min(...xs))}–${pct(Math.max(...xs))})`;

export async function run(): Promise<Row[]> {
  const dirs = [
    await mkdtemp(join(tmpdir(), "llmgw-bench-demo-")),
    await mkdtemp(join(tmpdir(), "llmgw-bench-serve-")),
  ];
  const demo = llmgw(["demo", "--data-dir", dirs[0] ?? "", "--listen", "127.0.0.1:0"]);
  const serve = llmgw(["serve", "--data-dir", dirs[1] ?? "", "--listen", "127.0.0.1:0"]);
  try {
    await Promise.all([demo.ready, serve.ready]);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const shares = { demo: [] as number[], serve: [] as number[] };
    for (let w = 0; w < WINDOWS; w++) {
      const before = { demo: cpuMsOf(demo.proc.pid ?? 0), serve: cpuMsOf(serve.proc.pid ?? 0) };
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
      const wall = performance.now() - started;
      shares.demo.push((cpuMsOf(demo.proc.pid ?? 0) - before.demo) / wall);
      shares.serve.push((cpuMsOf(serve.proc.pid ?? 0) - before.serve) / wall);
    }
    console.log(
      `demo idle, ${SETTLE_MS / 1000} s after ready: demo ${range(shares.demo)} of a core, idle serve ${range(shares.serve)}`,
    );
    return [
      {
        measure: `idle \`llmgw demo\` CPU a minute after it is ready (12 simulated nodes beating every 2 s; ${WINDOWS} windows of ${WINDOW_MS / 1000} s)`,
        value: `${range(shares.demo)} of a core`,
        peer: `idle \`llmgw serve\`, empty, same time: ${range(shares.serve)}`,
        aim: `≤ ${pct(AIM)} of a core`,
        met: median(shares.demo) <= AIM,
      },
    ];
  } finally {
    await Promise.all([stop(demo.proc), stop(serve.proc)]);
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

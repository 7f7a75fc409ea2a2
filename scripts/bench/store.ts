// The embedded store: `llmgw serve` from spawn to its "ready" line, the CPU time it took (the
// machine is shared: wall time moves with the load, CPU time much less) and its resident memory
// then and a few seconds later. First on a new data directory with no empty database cached (initdb
// runs), then on a second new one (started from the cached copy), then restarts on the first.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freshBundle } from "../cli-bundle.mjs";
import { median, type Row } from "./report";

export const names = ["embedded store start"];
const RESTARTS = 3;

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** User and system CPU time the process has used, in ms (proc(5): fields 14 and 15, in ticks of 10 ms). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

type Start = { readyMs: number; cpuMs: number; rss: number; rssLater: number };

async function start(dataDir: string, cacheDir: string): Promise<Start> {
  const cli = fileURLToPath(new URL("../llmgw.mjs", import.meta.url));
  const began = performance.now();
  const proc = spawn(process.execPath, [cli, "serve", "--data-dir", dataDir, "--listen", "127.0.0.1:0"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LLMGW_SCHEDULER: "on", XDG_CACHE_HOME: cacheDir },
  });
  let err = "";
  proc.stderr.on("data", (chunk: Buffer) => {
    err += chunk;
  });
  const readyMs = await new Promise<number>((resolve, reject) => {
    let out = "";
    proc.stdout.on("data", (chunk: Buffer) => {
      out += chunk;
      if (/ready/.test(out)) resolve(performance.now() - began);
    });
    proc.once("exit", (code) => reject(new Error(`llmgw serve exited with ${code}: ${out}${err}`)));
  });
  const pid = proc.pid ?? 0;
  const cpuMs = cpuOf(pid);
  const rss = rssOf(pid);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const rssLater = rssOf(pid);
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.kill("SIGTERM");
  await exited;
  return { readyMs, cpuMs, rss, rssLater };
}

export async function run(): Promise<Row[]> {
  // Built before timing: a start after a source edit rebuilds the CLI first (under a second).
  await freshBundle();
  const dir = await mkdtemp(join(tmpdir(), "llmgw-bench-store-"));
  const cacheDir = join(dir, "cache");
  try {
    const first = await start(join(dir, "a"), cacheDir);
    const copied = await start(join(dir, "b"), cacheDir);
    const again: Start[] = [];
    for (let i = 0; i < RESTARTS; i++) again.push(await start(join(dir, "a"), cacheDir));
    const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`;
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const line = (r: Start) =>
      `${s(r.readyMs)} (CPU ${s(r.cpuMs)}, RSS ${mb(r.rss)}, ${mb(r.rssLater)} 3 s later)`;
    console.log(`llmgw serve, new data dir, initdb: ${line(first)}`);
    console.log(`llmgw serve, new data dir, cached empty database: ${line(copied)}`);
    for (const r of again) console.log(`llmgw serve, existing data dir: ${line(r)}`);
    const readyAgain = median(again.map((r) => r.readyMs));
    const rssMax = Math.max(...[first, copied, ...again].flatMap((r) => [r.rss, r.rssLater]));
    return [
      {
        measure: "embedded store: `llmgw serve` on an existing data dir, spawn → ready (median of 3)",
        value: `${s(readyAgain)} (fastest ${s(Math.min(...again.map((r) => r.readyMs)))}, CPU ${s(median(again.map((r) => r.cpuMs)))})`,
        peer: `new data dir: ${s(copied.readyMs)}; with initdb: ${s(first.readyMs)}`,
        aim: "≤ 2 s",
        met: readyAgain <= 2000,
      },
      {
        measure: "embedded store: resident memory (largest seen)",
        value: mb(rssMax),
        aim: "≤ 500 MB",
        met: rssMax <= 500e6,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// The embedded store: `llmgw serve` from spawn to its "ready" line, and its resident memory then
// and a few seconds later; first on a new data directory (migrations run), then on that one again.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, type Row } from "./report";

export const names = ["embedded store start"];
const RESTARTS = 3;

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

async function start(dataDir: string): Promise<{ readyMs: number; rss: number; rssLater: number }> {
  const cli = fileURLToPath(new URL("../llmgw.mjs", import.meta.url));
  const began = performance.now();
  const proc = spawn(process.execPath, [cli, "serve", "--data-dir", dataDir, "--listen", "127.0.0.1:0"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LLMGW_SCHEDULER: "on" },
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
  const rss = rssOf(pid);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const rssLater = rssOf(pid);
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.kill("SIGTERM");
  await exited;
  return { readyMs, rss, rssLater };
}

export async function run(): Promise<Row[]> {
  const dataDir = await mkdtemp(join(tmpdir(), "llmgw-bench-store-"));
  try {
    const first = await start(dataDir);
    const again = [];
    for (let i = 0; i < RESTARTS; i++) again.push(await start(dataDir));
    const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`;
    const readyAgain = median(again.map((r) => r.readyMs));
    const rssMax = Math.max(first.rssLater, first.rss, ...again.map((r) => Math.max(r.rss, r.rssLater)));
    console.log(
      `llmgw serve: new data dir ready in ${first.readyMs.toFixed(0)} ms (RSS ${mb(first.rss)}, ${mb(first.rssLater)} 3 s later); ` +
        `existing: ${again.map((r) => r.readyMs.toFixed(0)).join(", ")} ms (RSS ${again.map((r) => mb(r.rssLater)).join(", ")})`,
    );
    return [
      {
        measure: "embedded store: `llmgw serve` on an existing data dir, spawn → ready (median of 3)",
        value: `${(readyAgain / 1000).toFixed(2)} s (fastest ${(Math.min(...again.map((r) => r.readyMs)) / 1000).toFixed(2)} s)`,
        peer: `first start, new data dir: ${(first.readyMs / 1000).toFixed(2)} s`,
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
    await rm(dataDir, { recursive: true, force: true });
  }
}

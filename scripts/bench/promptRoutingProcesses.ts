// Routing by the prompt's beginning through two `llmgw serve` processes on one PostgreSQL (SPEC
// §7.1a, issue 37's "through two processes, ≥ 0.9× one process's hit ratio"): the prefix routing
// workload sent through a balancer that takes the two processes in turn, request by request (so a
// conversation's turns alternate between processes that share no learned state), against the same
// workload through one process on PostgreSQL — each on fresh engines and a database of its own.
// BENCH_PREFIX_SECONDS sets each measurement's length (default 20). Needs TEST_DATABASE_URL (or
// BENCH_DATABASE_URL); without one the row says it was not run.
//   BENCH='prefix two processes'
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openPostgres } from "@llmgw/store";
import {
  declareFleet,
  drive,
  engines,
  explainSlow,
  type Figures,
  figuresOf,
  REPLICAS,
  type Route,
  SLOTS,
  TENANTS,
} from "./promptRouting";
import { median, type Row } from "./report";

export const names = ["prefix two processes"];

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** Runs of both (BENCH_PREFIX_RUNS, default 3): the ratio as min/median/max over them. */
const RUNS = Math.max(1, Number(process.env.BENCH_PREFIX_RUNS ?? 3));
const base = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || "";

type Serve = { url: string; stop: () => Promise<void>; dir: string };

/** `llmgw serve` on `databaseUrl`, scheduler off (the replicas come from the bench's heartbeat). */
async function serve(databaseUrl: string): Promise<Serve> {
  const dir = await mkdtemp(join(tmpdir(), "llmgw-bench-prefix-"));
  const env = { ...process.env };
  for (const key of ["LLMGW_CONFIG", "LLMGW_LISTEN", "LLMGW_DATA_DIR"]) delete env[key];
  env.DATABASE_URL = databaseUrl;
  env.LLMGW_SCHEDULER = "off";
  const args = ["scripts/llmgw.mjs", "serve", "--data-dir", dir, "--listen", "127.0.0.1:0"];
  const proc: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    proc.once("exit", (code) => reject(new Error(`llmgw serve exited with ${code}:\n${out}`)));
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /llmgw ready on (http:\/\/[^\s"]+)/.exec(out);
      if (ready?.[1]) resolve(ready[1]);
    };
    proc.stdout?.on("data", read);
    proc.stderr?.on("data", read);
  });
  return {
    url,
    dir,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((resolve) => proc.once("exit", resolve));
        proc.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `sql` on the PostgreSQL server at `base`, over a connection of its own. */
async function admin(sql: string): Promise<void> {
  const db = await openPostgres(base);
  try {
    await db.query(sql);
  } finally {
    await db.close();
  }
}

/** Until `server` answers a chat completion for the bench model (its snapshot has the replicas). */
async function untilReady(server: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${server}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "bench", messages: [{ role: "user", content: "ping" }] }),
    });
    await res.arrayBuffer();
    if (res.ok) return;
    if (Date.now() > deadline) throw new Error(`${server} never served the bench model (${res.status})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The workload through `processes` llmgw processes on one fresh database, taken in turn. */
async function through(processes: number): Promise<Figures> {
  const name = `llmgw_bench_${randomBytes(4).toString("hex")}`;
  await admin(`create database ${name}`);
  const database = new URL(base);
  database.pathname = `/${name}`;
  const databaseUrl = database.toString();
  const fleet = await engines();
  const servers: Serve[] = [];
  try {
    for (let p = 0; p < processes; p++) servers.push(await serve(databaseUrl));
    const first = servers[0];
    if (!first) throw new Error("no process");
    await declareFleet(first.url, fleet);
    for (const s of servers) await untilReady(s.url);
    const urls = servers.map((s) => `${s.url}/v1/chat/completions`);
    let turn = 0;
    const route: Route = async () => ({ url: urls[turn++ % urls.length] ?? "", release: () => {} });
    const samples = await drive(route, TENANTS * 2, (user) => user % TENANTS);
    const f = figuresOf(samples);
    // BENCH_PREFIX_DEBUG=1: why the slowest were slow, and which tenants each engine served, to see
    // where the processes disagree.
    if (process.env.BENCH_PREFIX_DEBUG) console.log(explainSlow(samples, fleet));
    if (process.env.BENCH_PREFIX_DEBUG)
      for (const e of fleet) {
        const counts: Record<string, number> = {};
        for (const r of e.received) {
          const t = /Tenant (\d+)'s/.exec(r.text)?.[1] ?? "-";
          counts[t] = (counts[t] ?? 0) + 1;
        }
        console.log(`  engine: ${e.received.length} requests, tenants ${JSON.stringify(counts)}`);
      }
    console.log(
      `${processes} process${processes > 1 ? "es" : ""}: time to first token p50 ${f.p50.toFixed(0)} ms, p90 ${f.p90.toFixed(0)} ms, cached ${(f.hit * 100).toFixed(1)}%, ${f.answered} answered`,
    );
    return f;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await Promise.all(fleet.map((e) => e.close()));
    await admin(`drop database if exists ${name}`);
  }
}

const ms = (f: Figures) =>
  `p50 ${f.p50.toFixed(0)} ms, p90 ${f.p90.toFixed(0)} ms, ${(f.hit * 100).toFixed(1)}% cached, ${f.answered} answered`;

export async function run(only: RegExp | null): Promise<Row[]> {
  if (only && !only.test(names[0] ?? "")) return [];
  const measure = `prefix routing through two processes on PostgreSQL, taken in turn: hit ratio vs one process (${TENANTS} tenants × 2 users, ${REPLICAS} × ${SLOTS} slots)`;
  if (base === "") return [{ measure, value: "not run: needs TEST_DATABASE_URL", aim: "≥ 0.9×", met: null }];
  const runs: Array<{ one: Figures; two: Figures; ratio: number }> = [];
  for (let r = 0; r < RUNS; r++) {
    const one = await through(1);
    const two = await through(2);
    runs.push({ one, two, ratio: one.hit > 0 ? two.hit / one.hit : 0 });
  }
  // The run of median ratio stands for the others; the ratio's spread over runs is given beside it.
  const sorted = [...runs].sort((a, b) => a.ratio - b.ratio);
  const mid = sorted[Math.floor(sorted.length / 2)];
  if (!mid) return [];
  const ratios = sorted.map((r) => r.ratio);
  const spread = `${median(ratios).toFixed(2)}× (min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)}, ${RUNS} runs)`;
  return [
    {
      measure,
      value: ms(mid.two),
      peer: `one process: ${ms(mid.one)}`,
      ratio: spread,
      aim: "≥ 0.9×",
      met: median(ratios) >= 0.9,
    },
  ];
}

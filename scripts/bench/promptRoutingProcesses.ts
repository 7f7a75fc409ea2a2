// Routing by the prompt's beginning through two `llmgw serve` processes on one PostgreSQL (SPEC
// §7.1a, issue 37's "through two processes, ≥ 0.9× one process's hit ratio"): the prefix routing
// workload sent through a balancer that takes the two processes in turn, request by request (so a
// conversation's turns alternate between processes that share no learned state), against the same
// workload through one process on PostgreSQL — each on fresh engines and a database of its own.
// Needs TEST_DATABASE_URL (or BENCH_DATABASE_URL); without one the row says it was not run.
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
  type Figures,
  figuresOf,
  REPLICAS,
  type Route,
  SLOTS,
  TENANTS,
} from "./promptRouting";
import type { Row } from "./report";

export const names = ["prefix two processes"];

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
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

/** A database of its own on the PostgreSQL server at `base`; its URL. */
async function freshDatabase(): Promise<string> {
  const name = `llmgw_bench_${randomBytes(4).toString("hex")}`;
  const admin = await openPostgres(base);
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.close();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
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
  const databaseUrl = await freshDatabase();
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
    const f = figuresOf(await drive(route, TENANTS * 2, (user) => user % TENANTS));
    console.log(
      `${processes} process${processes > 1 ? "es" : ""}: time to first token p50 ${f.p50.toFixed(0)} ms, p90 ${f.p90.toFixed(0)} ms, cached ${(f.hit * 100).toFixed(1)}%, ${f.answered} answered`,
    );
    return f;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await Promise.all(fleet.map((e) => e.close()));
  }
}

const ms = (f: Figures) =>
  `p50 ${f.p50.toFixed(0)} ms, p90 ${f.p90.toFixed(0)} ms, ${(f.hit * 100).toFixed(1)}% cached, ${f.answered} answered`;

export async function run(only: RegExp | null): Promise<Row[]> {
  if (only && !only.test(names[0] ?? "")) return [];
  const measure = `prefix routing through two processes on PostgreSQL, taken in turn: hit ratio vs one process (${TENANTS} tenants × 2 users, ${REPLICAS} × ${SLOTS} slots)`;
  if (base === "") return [{ measure, value: "not run: needs TEST_DATABASE_URL", aim: "≥ 0.9×", met: null }];
  const one = await through(1);
  const two = await through(2);
  const ratio = one.hit > 0 ? two.hit / one.hit : 0;
  return [
    {
      measure,
      value: ms(two),
      peer: `one process: ${ms(one)}`,
      ratio: `${ratio.toFixed(2)}×`,
      aim: "≥ 0.9×",
      met: ratio >= 0.9,
    },
  ];
}

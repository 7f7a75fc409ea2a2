// Issue 7's load test: 200 concurrent clients for 30 s on a mix of reads and writes against the
// real server as `llmgw serve` runs it (scheduler on), with heartbeats from simulated nodes and
// open event streams. An error is any 5xx, network error or time-out, or a status wrong for the
// request (a 412 to a stale If-Match is right: the client re-reads and retries). Afterwards every
// acknowledged change is checked against what the server holds and what the streams heard.
// The server is one process and the clients another; on the embedded store, and again on
// PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL names a server (in a database of its own).
import { child, load, type Row } from "./report";

export const names = ["load 200 clients"];
const CLIENTS = Number(process.env.BENCH_LOAD_CLIENTS ?? 200);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 30);
const MODELS = Number(process.env.BENCH_LOAD_MODELS ?? 200);
const NODES = Number(process.env.BENCH_LOAD_NODES ?? 50);
const STREAMS = Number(process.env.BENCH_LOAD_STREAMS ?? 20);

type Usage = {
  cpuMs: number;
  rss: number;
  peakRss: number;
  logged: string[];
  loggedCount: number;
  scheduler: { runs: number; errors: number; seconds: number };
  snapshotLoads: number;
  loop: { p99Ms: number; maxMs: number };
};
type KindFigures = {
  kind: string;
  count: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  statuses: Record<string, number>;
  samples: string[];
};
type Report = {
  seconds: number;
  kinds: KindFigures[];
  total: { count: number; rps: number; p50: number; p99: number; errors: number };
  conflicts: number;
  gaveUp: number;
  created: number;
  deleted: number;
  unsure: number;
  events: number;
  streams: number;
  problems: string[];
  timeline: { answered: number; worst: number }[];
  slowest: {
    kind: string;
    sentAt: number;
    ms: number;
    phases?: { socket: number; written: number; headers: number };
  }[];
};

async function once(label: string, postgres: string): Promise<Row[]> {
  // BENCH_PROF=<dir>: a CPU profile of the server, as report.ts takes one of the other servers.
  const prof = process.env.BENCH_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
  const server = child("./loadServer.ts", [String(MODELS), postgres], prof);
  const { port, store } = await server.ask<{ port: number; store: string }>(null);
  const clients = child("./loadClients.ts", [
    `http://127.0.0.1:${port}`,
    String(CLIENTS),
    String(SECONDS),
    String(NODES),
    String(STREAMS),
    String(MODELS),
  ]);
  await clients.ask(null);
  const before = await server.ask<Usage>({ cmd: "usage" });
  const started = performance.now();
  const report = await clients.ask<Report>({ cmd: "go" });
  const wallMs = performance.now() - started;
  const after = await server.ask<Usage>({ cmd: "usage" });
  await Promise.all([clients.stop(), server.stop()]);

  const ms = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(1)} ms`);
  console.log(
    `\nload on ${label} (${store}): ${CLIENTS} clients for ${report.seconds.toFixed(1)} s, ${MODELS} models, ${NODES} nodes, ${report.streams} event streams; load ${load()}`,
  );
  console.table(
    [...report.kinds, { ...report.total, kind: "total", max: Number.NaN, statuses: {}, samples: [] }].map(
      (k) => ({
        kind: k.kind,
        count: k.count,
        "req/s": k.rps.toFixed(1),
        p50: ms(k.p50),
        p99: ms(k.p99),
        max: Number.isNaN(k.max) ? "" : ms(k.max),
        errors: k.errors,
        statuses: Object.entries(k.statuses)
          .map(([s, n]) => `${s}×${n}`)
          .join(" "),
      }),
    ),
  );
  for (const k of report.kinds) for (const s of k.samples) console.log(`  error, ${k.kind}: ${s}`);
  const serverCpu = (after.cpuMs - before.cpuMs) / wallMs;
  console.log(
    `  PATCH: ${report.conflicts} answered 412 (re-read and retried), ${report.gaveUp} gave up after 5 tries; ` +
      `${report.created} creates and ${report.deleted} deletes acknowledged, ${report.unsure} unsure; ` +
      `${report.events} events, heard by every stream: ${report.problems.some((p) => p.startsWith("stream")) ? "NO" : "yes"}`,
  );
  console.log(
    `  server: CPU ${(serverCpu * 100).toFixed(0)}% of a core, RSS ${(after.rss / 1e6).toFixed(0)} MB (peak ${(after.peakRss / 1e6).toFixed(0)} MB); ` +
      `${after.loggedCount - before.loggedCount} errors logged`,
  );
  console.log(
    `  server: scheduler ${after.scheduler.runs - before.scheduler.runs} runs, ${(after.scheduler.seconds - before.scheduler.seconds).toFixed(1)} s in all, ` +
      `${after.scheduler.errors - before.scheduler.errors} failed; ` +
      `${after.snapshotLoads - before.snapshotLoads} snapshot loads from the store; event loop held p99 ${after.loop.p99Ms.toFixed(0)} ms, longest ${after.loop.maxMs.toFixed(0)} ms`,
  );
  console.log(
    `  answers per second of the run (slowest): ${report.timeline.map((s) => `${s.answered} (${ms(s.worst)})`).join(", ")}`,
  );
  console.log(
    `  slowest: ${report.slowest.map((s) => `${s.kind} sent at +${s.sentAt.toFixed(2)} s took ${ms(s.ms)}${s.phases ? ` (connection after ${ms(s.phases.socket)}, written ${ms(s.phases.written)}, headers ${ms(s.phases.headers)})` : ""}`).join("; ")}`,
  );
  for (const line of after.logged.slice(before.logged.length, before.logged.length + 5))
    console.log(`  server logged: ${line.split("\n").slice(0, 4).join(" | ")}`);
  for (const p of report.problems.slice(0, 20)) console.log(`  inconsistent: ${p}`);

  const t = report.total;
  const fivexx = report.kinds.reduce(
    (sum, k) =>
      sum + Object.entries(k.statuses).reduce((s, [code, n]) => s + (Number(code) >= 500 ? n : 0), 0),
    0,
  );
  const peakMB = after.peakRss / 1e6;
  return [
    {
      measure: `load: ${CLIENTS} clients × ${SECONDS} s, mixed reads/writes + heartbeats + ${report.streams} SSE streams (${label})`,
      value:
        `${t.rps.toFixed(0)} req/s, p50 ${ms(t.p50)}, p99 ${ms(t.p99)}; ${t.errors} errors (${fivexx} 5xx)` +
        `${report.problems.length ? `, ${report.problems.length} inconsistencies` : ""}`,
      aim: "no errors; p99 reported",
      met: t.errors === 0 && report.problems.length === 0,
    },
    {
      measure: `\`llmgw serve\` resident memory under that load (${label}; ${MODELS} models, ${NODES} nodes, largest RSS sampled during the run)`,
      value: `${peakMB.toFixed(0)} MB peak (${(after.rss / 1e6).toFixed(0)} MB at the end)`,
      aim: "≤ 500 MB",
      met: peakMB <= 500,
    },
  ];
}

export async function run(): Promise<Row[]> {
  const rows = await once("embedded PGlite", "");
  const postgres = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (postgres) rows.push(...(await once("PostgreSQL", postgres)));
  return rows;
}

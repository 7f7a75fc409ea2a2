// Usage recording at ten processes (SPEC §12.1), in its own process (forked by usage.ts): ten
// recorders on one PostgreSQL (TEST_DATABASE_URL, a database of its own), each with its own Deps
// (store connections, world) as ten `llmgw serve` have, the first the leader (it counts replica
// time too). Each is told RATE requests a second spread over 2,000 models × 200 client tokens, so
// its once-a-second write carries thousands of keys. Counted over RUN_S seconds: the write
// transactions each one opens (its store's transaction()), PostgreSQL's own count of committed
// transactions in that database (pg_stat_database), each write's time, and afterwards that the
// store holds every request told.
import { type Control, startUsageRecorder, UsageTally } from "@llmgw/api";
import { recordingProcesses } from "./recordingProcesses";
import { median, type Row } from "./report";

const PROCESSES = 10;
const MODELS = 2_000;
const TOKENS = 200;
const RATE = Number(process.env.BENCH_USAGE_RATE ?? 2_000);
const RUN_S = Number(process.env.BENCH_USAGE_RECORD_SECONDS ?? 20);
const base = process.env.TEST_DATABASE_URL ?? "";

const measure = `usage recording: ${PROCESSES} processes × ${MODELS.toLocaleString("en")} models × ${TOKENS} tokens, ${RATE.toLocaleString("en")} requests/s each, one PostgreSQL`;
const aim = "≤ 1 write transaction per process per second";
if (base === "") {
  process.send?.({ rows: [{ measure, value: "not run: needs TEST_DATABASE_URL", aim, met: null }] });
  process.exit(0);
}

const { all, controls, writes, writeMs, stats, close } = await recordingProcesses(base, PROCESSES);

const tallies = all.map((deps) => new UsageTally(() => deps.now().getTime()));
const recorders = all.map((deps, p) =>
  startUsageRecorder(deps, (controls[p] as Control).runtime, tallies[p] as UsageTally),
);
let told = 0;
let seed = 1;
const random = (n: number) => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed % n;
};
// Every 50 ms each process is told a twentieth of its second's requests: the gateway's meter, as
// requests end.
const load = setInterval(() => {
  for (const tally of tallies)
    for (let i = 0; i < RATE / 20; i++) {
      const model = random(MODELS);
      tally.add({
        model: `model-${model}`,
        token: "bench",
        clientToken: `token-${random(TOKENS)}`,
        owner: `team-${model % 40}`,
        status: 200,
        sent: true,
        queuedMs: 0,
        firstByteMs: 5,
        durationMs: 20,
        promptTokens: 100,
        completionTokens: 20,
      });
      told++;
    }
}, 50);

const commits = async () => {
  const [row] = await stats.query<{ n: string }>(
    "select xact_commit::text as n from pg_stat_database where datname = current_database()",
  );
  return Number(row?.n ?? 0);
};
await new Promise((resolve) => setTimeout(resolve, 3_000)); // every process's first writes
// PostgreSQL's statistics reach other sessions within about a second: read again after a pause.
await new Promise((resolve) => setTimeout(resolve, 1_000));
const commitsBefore = await commits();
// Writes are counted from here, over the same window as the commits (they were counted from
// before the pause, a second more than the window: 21 writes in 20 s read as 1.05 a second).
writes.fill(0);
writeMs.length = 0;
const started = performance.now();
await new Promise((resolve) => setTimeout(resolve, RUN_S * 1000));
const seconds = (performance.now() - started) / 1000;
const perProcess = writes.map((w) => w / seconds);
const times = [...writeMs];
await new Promise((resolve) => setTimeout(resolve, 1_000));
// Less the two statistics reads themselves.
const pgCommits = (await commits()) - commitsBefore - 2;
clearInterval(load);
await Promise.all(recorders.map((r) => r.stop()));
const [stored] = await stats.query<{ n: string; keys: string }>(
  "select coalesce(sum(requests), 0)::text as n, count(*)::text as keys from usage_hours",
);
await close();

const fmt = (x: number) => x.toFixed(2);
const storedAll = Number(stored?.n ?? -1);
process.send?.({
  rows: [
    {
      measure: `${measure}, ${Math.round(seconds)} s`,
      value:
        `write transactions per process per second: ${fmt(median(perProcess))} median (min ${fmt(Math.min(...perProcess))}, max ${fmt(Math.max(...perProcess))}); ` +
        `PostgreSQL counted ${fmt(pgCommits / seconds / PROCESSES)} commits per process per second (every commit in the database, read-only ones included); ` +
        `a write ${median(times).toFixed(0)} ms median (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}); ` +
        `stored ${storedAll.toLocaleString("en")} of ${told.toLocaleString("en")} requests told (${Number(stored?.keys ?? 0).toLocaleString("en")} hour rows)`,
      peer: `a write per request would be ${RATE.toLocaleString("en")} transactions per process per second`,
      aim,
      // Judged on the write transactions each process opened (its store's transaction(), counted in
      // the process): PostgreSQL's commit count holds every read's autocommit as well.
      met: Math.max(...perProcess) <= 1.05 && storedAll === told,
    },
  ] satisfies Row[],
});
process.exit(0);

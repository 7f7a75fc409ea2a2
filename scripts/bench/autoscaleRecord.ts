// Demand recording at ten processes (SPEC §9.1), in its own process (forked by autoscale.ts): ten
// autoscalers on one PostgreSQL (TEST_DATABASE_URL, a database of its own), each with its own
// Deps — store connections, origin, world — as ten `llmgw serve` have, one of them the leader,
// each fed a demand on all 2,000 models that changes every second (its row is as big as it gets).
// Counted over RUN_S seconds: the write transactions each one opens (its store's transaction()),
// the rows PostgreSQL says the `demand` table took (pg_stat_user_tables), and one row's size.
import { type Control, type GatewayDemand, startAutoscaler } from "@llmgw/api";
import { bigFleetModel } from "@llmgw/api/testing";
import { modelInputSchema } from "@llmgw/domain";
import { recordingProcesses } from "./recordingProcesses";
import { median, type Row } from "./report";

const PROCESSES = 10;
const MODELS = 2_000;
const RUN_S = Number(process.env.BENCH_AUTOSCALE_RECORD_SECONDS ?? 30);
const base = process.env.TEST_DATABASE_URL ?? "";

const measure = `demand recording: ${PROCESSES} processes × ${MODELS.toLocaleString("en")} models with demand, one PostgreSQL`;
if (base === "") {
  process.send?.({
    rows: [
      {
        measure,
        value: "not run: needs TEST_DATABASE_URL",
        aim: "≤ 1 write transaction per process per second",
        met: null,
      },
    ],
  });
  process.exit(0);
}

const { all, controls, writes, stats, close } = await recordingProcesses(base, PROCESSES);
const first = all[0];
if (!first) throw new Error("no process");
const at = new Date().toISOString();
await first.store.models.syncDeclared([]);
const models = Array.from({ length: MODELS }, (_, i) =>
  modelInputSchema.parse({ ...bigFleetModel(i), scaling: { min: 1, max: 4 } }),
);
const inserting = first.store.transaction.bind(first.store);
await inserting(async (tx) => {
  for (const m of models)
    await tx.models.insert({ ...m, origin: "runtime", version: 1, updatedAt: at, updatedBy: "seed" });
});
for (const deps of all) deps.world.invalidate();
writes.fill(0);

let tick = 0;
const demandOf = (p: number) => (): GatewayDemand => {
  tick++;
  const byModel: GatewayDemand["models"] = new Map();
  const replicas: GatewayDemand["replicas"] = new Map();
  for (let i = 0; i < MODELS; i++) {
    byModel.set(`model-${i}`, { inFlight: 1 + ((i + tick + p) % 9), queued: (i * 3 + tick) % 4 });
    replicas.set(`model-${i}-r${p}`, 1 + ((i + tick) % 9));
  }
  return { models: byModel, replicas };
};
const rowsTaken = async () => {
  const [row] = await stats.query<{ n: number }>(
    "select coalesce(sum(n_tup_ins + n_tup_upd), 0)::int as n from pg_stat_user_tables where relname = 'demand'",
  );
  return Number(row?.n ?? 0);
};

const scalers = await Promise.all(
  all.map((deps, p) => startAutoscaler(deps, controls[p] as Control, { demand: demandOf(p) })),
);
await new Promise((resolve) => setTimeout(resolve, 4_000)); // every process's first rows and windows
// PostgreSQL's statistics reach other sessions within about a second: the row counts are read a
// little after each end of the run, and cover the same length of time.
const rowsBefore = await rowsTaken();
writes.fill(0);
const started = performance.now();
await new Promise((resolve) => setTimeout(resolve, RUN_S * 1000));
const seconds = (performance.now() - started) / 1000;
const perProcess = writes.map((w) => w / seconds);
const [size] = await stats.query<{ bytes: number }>(
  `select max(pg_column_size(models) + pg_column_size(replicas))::int as bytes from demand`,
);
const rows = (await rowsTaken()) - rowsBefore;
await Promise.all(scalers.map((s) => s.stop()));
await close();

const fmt = (x: number) => x.toFixed(2);
process.send?.({
  rows: [
    {
      measure: `${measure}, ${Math.round(seconds)} s`,
      value: `write transactions per process per second: ${fmt(median(perProcess))} median (min ${fmt(Math.min(...perProcess))}, max ${fmt(Math.max(...perProcess))}); demand rows written ${fmt(rows / seconds / PROCESSES)} per process per second; a row ${((size?.bytes ?? 0) / 1000).toFixed(1)} kB`,
      peer: `one row per model and process would be ${MODELS.toLocaleString("en")} rows per process per second`,
      aim: "≤ 1 write transaction per process per second",
      met: Math.max(...perProcess) <= 1.05,
    },
  ] satisfies Row[],
});
process.exit(0);

// What the recording benches share (demand, autoscaleRecord.ts; usage, usageRecord.ts): a
// database of its own on the PostgreSQL of TEST_DATABASE_URL, `count` recorders on it each with
// its own Deps (store connections, origin, world) as that many `llmgw serve` have, the first the
// leader (SPEC §4's lock, held here by fiat), and each one's write transactions counted and timed
// (its store's transaction()). `stats` is a connection of its own, for PostgreSQL's figures.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Control, type Deps, loadConfig, openDeps } from "@llmgw/api";
import { openPostgres } from "@llmgw/store";

export type RecordingProcesses = {
  all: Deps[];
  /** Each one's control, beside `all`: the first leads the scheduler, the others do not. */
  controls: Control[];
  /** Write transactions each one opened since the last `writes.fill(0)`. */
  writes: number[];
  /** Each write's time (ms), every process's. */
  writeMs: number[];
  stats: Awaited<ReturnType<typeof openPostgres>>;
  /** Closes every store, drops the database and removes the data directories. */
  close(): Promise<void>;
};

export async function recordingProcesses(base: string, count: number): Promise<RecordingProcesses> {
  const name = `llmgw_bench_${randomBytes(4).toString("hex")}`;
  const admin = await openPostgres(base);
  await admin.query(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const stats = await openPostgres(url.toString());
  const dirs: string[] = [];
  const all: Deps[] = [];
  const controls: Control[] = [];
  const writes: number[] = [];
  const writeMs: number[] = [];
  for (let p = 0; p < count; p++) {
    const dataDir = await mkdtemp(join(tmpdir(), "llmgw-bench-record-"));
    dirs.push(dataDir);
    const config = loadConfig({ dataDir, listen: "127.0.0.1:0" }, { DATABASE_URL: url.toString() });
    const deps = await openDeps(config);
    // Only the first leads: the others only record and read.
    const control = new Control(deps);
    if (p > 0) control.runtime.leadership = { held: false };
    controls.push(control);
    const transaction = deps.store.transaction.bind(deps.store);
    writes.push(0);
    deps.store.transaction = async (fn) => {
      writes[p] = (writes[p] ?? 0) + 1;
      const began = performance.now();
      try {
        return await transaction(fn);
      } finally {
        writeMs.push(performance.now() - began);
      }
    };
    all.push(deps);
  }
  return {
    all,
    controls,
    writes,
    writeMs,
    stats,
    async close() {
      for (const deps of all) await deps.store.close();
      await stats.close();
      await admin.query(`drop database ${name} with (force)`);
      await admin.close();
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    },
  };
}

// Issue 17 at scale, as a new user meets it: `llmgw serve` (scheduler on, the embedded PGlite
// store in a fresh data directory) given MODELS models through POST /api/v1/models and NODES
// nodes through their heartbeats (10 replicas each, simulated agents that run what the scheduler
// places: beatFleet.ts). Measured: the first heartbeats of all nodes against the same beats
// unchanged (total wall time, 50 at a time); the bytes of GET /headroom and GET /models
// uncompressed; GET /headroom's time with the picture cached and right after a heartbeat that
// moves one node's free memory (median of SAMPLES). At 500 × 2,000 and 2,000 × 5,000.
import { Agent, request } from "node:http";
import { BeatFleet } from "./beatFleet";
import { child, load, median, percentile, type Row } from "./report";

export const names = ["scale 500x2000", "scale 2000x5000"];
const SAMPLES = Number(process.env.BENCH_SCALE_SAMPLES ?? 15);
const CONCURRENCY = 50;
const SETTLE = Number(process.env.BENCH_SCALE_SETTLE ?? 2);
const PER_NODE = 10;

type Usage = {
  cpuMs: number;
  rss: number;
  peakRss: number;
  scheduler: { runs: number; seconds: number };
  snapshotLoads: number;
  loop: { p99Ms: number; maxMs: number };
};

/** One GET without Accept-Encoding: the bytes as they leave the server uncompressed. */
function get(agent: Agent, url: URL): Promise<{ ms: number; bytes: number }> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { "accept-encoding": "identity" } }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on("end", () =>
        res.statusCode === 200
          ? resolve({ ms: performance.now() - start, bytes })
          : reject(new Error(`GET ${url.pathname}: ${res.statusCode}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

const range = (ms: number[]) =>
  `${median(ms).toFixed(1)} ms median (${Math.min(...ms).toFixed(1)}–${Math.max(...ms).toFixed(1)}, ${ms.length} runs)`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
/** What the server did between two usage readings: its scheduler's runs, whole reads of the store. */
const stats = (a: Usage, b: Usage) =>
  `scheduler ${b.scheduler.runs - a.scheduler.runs} runs (${(b.scheduler.seconds - a.scheduler.seconds).toFixed(1)} s), ` +
  `${b.snapshotLoads - a.snapshotLoads} snapshot loads, event loop held up to ${b.loop.maxMs.toFixed(0)} ms`;
const n = (value: number) => value.toLocaleString("en-US");

type Measured = {
  headroomBytes: number;
  modelsBytes: number;
  cached: number[];
  afterChange: number[];
  first: { ms: number; latencies: number[] };
  same: { ms: number };
};

async function once(models: number, nodes: number): Promise<Measured> {
  const label = `${n(models)} models × ${n(nodes)} nodes (${n(nodes * PER_NODE)} agent replicas)`;
  const seedStart = performance.now();
  // BENCH_PROF=<dir>: a CPU profile of the server, as load.ts takes one.
  const prof = process.env.BENCH_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
  const server = child("./loadServer.ts", [String(models)], prof);
  const { port } = await server.ask<{ port: number }>(null);
  const base = `http://127.0.0.1:${port}`;
  console.log(
    `scale ${label}: server up, ${models} models created in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
  );
  const fleet = new BeatFleet(base, { prefix: "scale", nodes, perNode: PER_NODE, models });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // BENCH_SCALE_PROF=<file>: a CPU profile of the server during the first heartbeats alone.
    const profile = process.env.BENCH_SCALE_PROF;
    if (profile) await server.ask({ cmd: "profile", stop: false });
    const cpu0 = await server.ask<Usage>({ cmd: "usage" });
    const first = await fleet.round({ concurrency: CONCURRENCY });
    const cpu1 = await server.ask<Usage>({ cmd: "usage" });
    if (profile)
      await server.ask({ cmd: "profile", stop: true, path: `${profile}.${models}x${nodes}.cpuprofile` });
    console.log(
      `  ${n(nodes)} first heartbeats: ${(first.ms / 1000).toFixed(2)} s (p50 ${percentile(first.latencies, 50).toFixed(1)} ms, p99 ${percentile(first.latencies, 99).toFixed(1)} ms), server CPU ${((cpu1.cpuMs - cpu0.cpuMs) / 1000).toFixed(1)} s, ${stats(cpu0, cpu1)}; load ${load()}`,
    );
    // Two unmeasured rounds: the scheduler places its replicas, the agents start them and say so.
    for (let settle = 0; settle < SETTLE; settle++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const round = await fleet.round({ concurrency: CONCURRENCY });
      console.log(
        `  settling round: ${(round.ms / 1000).toFixed(2)} s, ${round.moved} beats moved (placements started)`,
      );
    }
    const same = await fleet.round({ concurrency: CONCURRENCY });
    const cpu2 = await server.ask<Usage>({ cmd: "usage" });
    console.log(
      `  the same ${n(nodes)} unchanged: ${(same.ms / 1000).toFixed(2)} s (p50 ${percentile(same.latencies, 50).toFixed(1)} ms, p99 ${percentile(same.latencies, 99).toFixed(1)} ms), ${same.moved} moved on the agents' side, server CPU ${((cpu2.cpuMs - cpu1.cpuMs) / 1000).toFixed(1)} s, ${stats(cpu1, cpu2)}; load ${load()}`,
    );

    const headroomUrl = new URL("/api/v1/headroom", base);
    const modelsUrl = new URL("/api/v1/models", base);
    const headroomBytes = (await get(agent, headroomUrl)).bytes;
    const modelsBytes = (await get(agent, modelsUrl)).bytes;
    const cached: number[] = [];
    for (let i = 0; i < SAMPLES; i++) cached.push((await get(agent, headroomUrl)).ms);
    const afterChange: number[] = [];
    const beatMs: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      // A different node each time, its free memory moved: the beat is committed, then the read.
      beatMs.push((await fleet.beat((i * 97) % nodes, true)).ms);
      afterChange.push((await get(agent, headroomUrl)).ms);
    }
    const cpu3 = await server.ask<Usage>({ cmd: "usage" });
    console.log(
      `  GET /headroom ${mb(headroomBytes)}, GET /models ${mb(modelsBytes)}; /headroom cached ${range(cached)}, after a changing beat ${range(afterChange)} (the beat ${range(beatMs)}); ` +
        `server RSS ${(cpu3.rss / 1e6).toFixed(0)} MB (peak ${(cpu3.peakRss / 1e6).toFixed(0)}), ${cpu3.scheduler.runs} scheduler runs; load ${load()}`,
    );

    return { headroomBytes, modelsBytes, cached, afterChange, first, same };
  } finally {
    agent.destroy();
    fleet.close();
    await server.stop();
  }
}

/**
 * The rows of RUNS runs, each on a new server: the first round can be measured once per server,
 * and one ratio of two rounds moves with whatever else the machine does, so it is judged by the
 * median of the runs' ratios (min / median / max printed).
 */
function rows(models: number, nodes: number, runs: readonly Measured[]): Row[] {
  const label = `${n(models)} models × ${n(nodes)} nodes (${n(nodes * PER_NODE)} agent replicas)`;
  const aimed = models === 500 && nodes === 2_000;
  const reported = "reported (aim set at 500 × 2,000)";
  const last = runs[runs.length - 1];
  if (!last) return [];
  const cached = runs.flatMap((r) => r.cached);
  const afterChange = runs.flatMap((r) => r.afterChange);
  const ratios = runs.map((r) => r.first.ms / r.same.ms);
  const seconds = (ms: number[]) =>
    `${(median(ms) / 1000).toFixed(2)} s median (${(Math.min(...ms) / 1000).toFixed(2)}–${(Math.max(...ms) / 1000).toFixed(2)})`;
  const latencies = runs.flatMap((r) => r.first.latencies);
  return [
    {
      measure: `GET /api/v1/headroom uncompressed, ${label}, \`llmgw serve\` on PGlite`,
      value: mb(last.headroomBytes),
      peer: `GET /api/v1/models: ${mb(last.modelsBytes)}`,
      aim: aimed ? "≤ 1 MB" : reported,
      met: aimed ? last.headroomBytes <= 1e6 : null,
    },
    {
      measure: `GET /api/v1/headroom right after a heartbeat that moves a node's free memory, ${label}`,
      value: range(afterChange),
      peer: `cached: ${median(cached).toFixed(1)} ms`,
      ratio: `${(median(afterChange) / median(cached)).toFixed(1)}×`,
      aim: aimed ? "≤ 100 ms median" : reported,
      met: aimed ? median(afterChange) <= 100 : null,
    },
    {
      measure: `${n(nodes)} first heartbeats (new nodes, ${PER_NODE} replicas each, ${CONCURRENCY} at a time), ${label}, scheduler on, ${runs.length} runs on new servers`,
      value: `${seconds(runs.map((r) => r.first.ms))} (p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms)`,
      peer: `the same ${n(nodes)} unchanged: ${seconds(runs.map((r) => r.same.ms))}`,
      ratio: `${median(ratios).toFixed(1)}× median (${Math.min(...ratios).toFixed(1)}–${Math.max(...ratios).toFixed(1)})`,
      aim: aimed ? "≤ 4×" : reported,
      met: aimed ? median(ratios) <= 4 : null,
    },
  ];
}

/** BENCH_SCALE_RUNS: runs of each size (default 3 at 500 × 2,000, where the aims are; 1 at 2,000 × 5,000). */
async function measure(models: number, nodes: number, runs: number): Promise<Row[]> {
  const measured: Measured[] = [];
  for (let i = 0; i < runs; i++) measured.push(await once(models, nodes));
  return rows(models, nodes, measured);
}

export async function run(only: RegExp | null): Promise<Row[]> {
  const runs = process.env.BENCH_SCALE_RUNS ? Number(process.env.BENCH_SCALE_RUNS) : null;
  const out: Row[] = [];
  if (!only || only.test(names[0] ?? "")) out.push(...(await measure(500, 2_000, runs ?? 3)));
  if (!only || only.test(names[1] ?? "")) out.push(...(await measure(2_000, 5_000, runs ?? 1)));
  return out;
}

// Heartbeats from 5,000 nodes every 5 s (1,000 a second) against `llmgw serve` as a user starts
// it (loadServer.ts: scheduler and liveness on, the embedded PGlite store in a fresh data
// directory, 500 models created through the API), each kind of beat apart: the nodes' first beats
// (registering), unchanged beats, and changing beats (free memory moved; on every tenth node a
// replica's state too). The server's CPU time as a share of one core over each paced round, and
// the beats' latencies. The server is one process and the simulated agents (beats.ts) another.
import type { Paced } from "./beats";
import { child, load, median, type Row } from "./report";

export const names = ["heartbeats"];
const NODES = Number(process.env.BENCH_BEAT_NODES ?? 5_000);
const INTERVAL = Number(process.env.BENCH_BEAT_INTERVAL ?? 5);
const ROUNDS = Number(process.env.BENCH_BEAT_ROUNDS ?? 3);
const MODELS = 500;

type Usage = { cpuMs: number; scheduler: { runs: number; seconds: number }; snapshotLoads: number };
type Server = ReturnType<typeof child>;

/** `rounds` paced rounds of one kind, the server's CPU share sampled at each round's end. */
async function phase(server: Server, beats: Server, rounds: number, change: boolean) {
  const samples = [{ at: performance.now(), usage: await server.ask<Usage>({ cmd: "usage" }) }];
  const sent = beats.ask<Paced>({ cmd: "go", rounds, change });
  for (let round = 1; round < rounds; round++) {
    const due = (samples[0]?.at ?? 0) + round * INTERVAL * 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    samples.push({ at: performance.now(), usage: await server.ask<Usage>({ cmd: "usage" }) });
  }
  const paced = await sent;
  // The last round runs until its last answer.
  samples.push({ at: performance.now(), usage: await server.ask<Usage>({ cmd: "usage" }) });
  const shares = samples.slice(1).map((s, i) => {
    const before = samples[i] ?? s;
    return (s.usage.cpuMs - before.usage.cpuMs) / (s.at - before.at);
  });
  const first = samples[0];
  const last = samples[samples.length - 1];
  const cpuMs = (last?.usage.cpuMs ?? 0) - (first?.usage.cpuMs ?? 0);
  const runs = (last?.usage.scheduler.runs ?? 0) - (first?.usage.scheduler.runs ?? 0);
  const scheduling = (last?.usage.scheduler.seconds ?? 0) - (first?.usage.scheduler.seconds ?? 0);
  const loads = (last?.usage.snapshotLoads ?? 0) - (first?.usage.snapshotLoads ?? 0);
  return {
    paced,
    shares,
    cpuMs,
    share: cpuMs / ((last?.at ?? 0) - (first?.at ?? 0)),
    runs,
    scheduling,
    loads,
  };
}

type Phase = Awaited<ReturnType<typeof phase>>;
const pct = (share: number) => `${(share * 100).toFixed(0)}%`;

function describe(kind: string, p: Phase): string {
  const { paced } = p;
  return (
    `heartbeats, ${kind}: ${paced.sent} beats in ${paced.seconds.toFixed(1)} s (${paced.rate.toFixed(0)}/s, ${paced.moved} moved, ` +
    `p50 ${paced.p50.toFixed(1)} ms, p99 ${paced.p99.toFixed(1)} ms, ${paced.errors} errors, ${paced.late} sent late); ` +
    `server CPU ${pct(p.share)} of a core (rounds ${p.shares.map(pct).join(", ")}), ${(p.cpuMs / paced.sent).toFixed(2)} ms a beat; ` +
    `scheduler ${p.runs} runs (${p.scheduling.toFixed(1)} s), ${p.loads} snapshot loads; load ${load()}`
  );
}

function row(kind: string, p: Phase): Row {
  const { paced } = p;
  const rounds =
    p.shares.length > 1
      ? `median of ${p.shares.length} rounds (${pct(Math.min(...p.shares))} / ${pct(median(p.shares))} / ${pct(Math.max(...p.shares))} min / median / max)`
      : "one round";
  const share = p.shares.length > 1 ? median(p.shares) : p.share;
  return {
    measure: `heartbeats against \`llmgw serve\` (PGlite, scheduler on, ${MODELS} models), ${NODES} nodes every ${INTERVAL} s: ${kind}, server CPU`,
    value:
      `${pct(share)} of a core, ${rounds}; ${(p.cpuMs / paced.sent).toFixed(2)} ms CPU a beat; ` +
      `${paced.rate.toFixed(0)}/s achieved, p50 ${paced.p50.toFixed(1)} ms, p99 ${paced.p99.toFixed(1)} ms, ${paced.errors} errors`,
    aim: `≤ 50% of a core at ${NODES / INTERVAL}/s`,
    met: share <= 0.5 && paced.rate >= (0.9 * NODES) / INTERVAL && paced.errors === 0,
  };
}

export async function run(): Promise<Row[]> {
  const server = child("./loadServer.ts", [String(MODELS)]);
  const { port } = await server.ask<{ port: number }>(null);
  const beats = child("./beats.ts", [`http://127.0.0.1:${port}`, String(NODES), String(INTERVAL)]);
  await beats.ask(null);
  try {
    const first = await phase(server, beats, 1, false);
    console.log(describe("first beats (new nodes registering)", first));
    // Unmeasured: the scheduler places its replicas and the agents start them and say so.
    const settling = await phase(server, beats, 2, false);
    console.log(describe("settling (unmeasured)", settling));
    const same = await phase(server, beats, ROUNDS, false);
    console.log(describe("unchanged beats", same));
    const changing = await phase(server, beats, ROUNDS, true);
    console.log(describe("changing beats", changing));
    return [
      row("first beats (new nodes registering, 2 replicas each)", first),
      row("unchanged beats", same),
      row("changing beats (free memory moved; a replica's state on every tenth node)", changing),
    ];
  } finally {
    await Promise.all([beats.stop(), server.stop()]);
  }
}

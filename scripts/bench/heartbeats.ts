// Heartbeats from 5,000 nodes every 5 s (1,000 a second), nearly all unchanged: the server's CPU
// time over the paced window as a share of one core. The server (with its liveness check, as
// `llmgw serve` runs it) is one process and the simulated agents another.
import { child, type Row } from "./report";

export const names = ["heartbeats"];
const NODES = Number(process.env.BENCH_BEAT_NODES ?? 5_000);
const INTERVAL = Number(process.env.BENCH_BEAT_INTERVAL ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS_BEATS ?? 15);

type Usage = { cpuMs: number; rss: number };
type Paced = {
  sent: number;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
  errors: number;
  late: number;
};

export async function run(): Promise<Row[]> {
  const server = child("./serve.ts", ["app", "500", "0", "", "5", String(NODES)]);
  const { port } = await server.ask<{ port: number }>(null);
  const beats = child("./beats.ts", [
    `http://127.0.0.1:${port}/api/v1/agents/heartbeat`,
    String(NODES),
    String(INTERVAL),
    String(SECONDS),
  ]);
  const reg = await beats.ask<{ registerMs: number }>(null);
  // One unmeasured second: the registrations' snapshot rebuilds settle.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const before = await server.ask<Usage>({ cmd: "usage" });
  const started = performance.now();
  const paced = await beats.ask<Paced>({ cmd: "go" });
  const wallMs = performance.now() - started;
  const after = await server.ask<Usage>({ cmd: "usage" });
  await Promise.all([beats.stop(), server.stop()]);
  const share = (after.cpuMs - before.cpuMs) / wallMs;
  console.log(
    `heartbeats: ${NODES} nodes, first round (unmeasured) in ${(reg.registerMs / 1000).toFixed(1)} s; then ${paced.sent} beats in ${paced.seconds.toFixed(1)} s ` +
      `(${paced.rate.toFixed(0)}/s, p50 ${paced.p50.toFixed(1)} ms, p99 ${paced.p99.toFixed(1)} ms, ${paced.errors} errors, ${paced.late} sent late); ` +
      `server CPU ${(after.cpuMs - before.cpuMs).toFixed(0)} ms over ${(wallMs / 1000).toFixed(1)} s, RSS ${(after.rss / 1e6).toFixed(0)} MB`,
  );
  return [
    {
      measure: `heartbeats, ${NODES} nodes every ${INTERVAL} s (${paced.rate.toFixed(0)}/s achieved), server CPU`,
      value: `${(share * 100).toFixed(0)}% of one core (p99 ${paced.p99.toFixed(0)} ms)`,
      aim: "≤ 50% of one core",
      met: share <= 0.5 && paced.rate >= 900,
    },
  ];
}

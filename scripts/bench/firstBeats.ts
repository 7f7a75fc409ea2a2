// A new node's first heartbeat carrying the most replicas one may (256), on a fleet of 20,000
// replicas (2,000 nodes × 10), over HTTP: the cost an agent (or an attacker holding an agent token)
// can ask of the server with one request. Before the fix, each unknown id was looked up by a scan
// of every stored replica, twice: 10,000 ids took 18 s and stalled every other request. The peer,
// in the same run, is the same beat sent again unchanged (the floor: parse, compare, answer).
import { child, median, type Row } from "./report";

export const names = ["first heartbeats"];
const NODES = Number(process.env.BENCH_FIRST_NODES ?? 2_000);
const PER_NODE = 10;
const MAX_REPLICAS = 256;
const SAMPLES = Number(process.env.BENCH_FIRST_SAMPLES ?? 20);

function firstBeat(i: number) {
  return {
    node: { name: `first-${i}`, memoryGB: 1024, cpuCount: 256, engines: ["llamacpp"] },
    replicas: Array.from({ length: MAX_REPLICAS }, (_, j) => ({
      id: `first-${i}-${j}`,
      model: `model-${(i * 7 + j) % 500}`,
      state: "ready",
      memoryGB: 1,
      cpuCores: 1,
    })),
  };
}

async function timed(url: string, body: unknown): Promise<number> {
  const start = performance.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`heartbeat: ${res.status}`);
  return performance.now() - start;
}

const line = (ms: number[]) =>
  `${median(ms).toFixed(1)} ms median (${Math.min(...ms).toFixed(1)}–${Math.max(...ms).toFixed(1)})`;

export async function run(): Promise<Row[]> {
  const server = child("./serve.ts", ["app", "500", "0", "", "5", String(NODES), String(PER_NODE)]);
  const { port } = await server.ask<{ port: number }>(null);
  const url = `http://127.0.0.1:${port}/api/v1/agents/heartbeat`;
  await timed(url, firstBeat(-1)); // warm-up: the first snapshot load
  const first: number[] = [];
  const again: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const body = firstBeat(i);
    first.push(await timed(url, body));
    again.push(await timed(url, body));
  }
  await server.stop();
  const ratio = median(first) / median(again);
  console.log(
    `first heartbeats: ${SAMPLES} new nodes × ${MAX_REPLICAS} replicas on ${NODES * PER_NODE} replicas: ${line(first)}; the same beat again ${line(again)}`,
  );
  return [
    {
      measure: `a new node's first heartbeat with ${MAX_REPLICAS} replicas, fleet of ${NODES * PER_NODE} replicas (HTTP)`,
      value: line(first),
      peer: `same beat unchanged: ${median(again).toFixed(1)} ms`,
      ratio: `${ratio.toFixed(1)}×`,
      aim: "cheap: ≤ 50 ms median",
      met: median(first) <= 50,
    },
  ];
}

// GET /api/v1/models with 500 models over 100 keep-alive connections, against a bare Hono route
// answering the same bytes. Each server is its own process and the load generator a third, so on
// a 2-core machine the server under test has about one core and the generator the other.
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { child, type Row } from "./report";

export const names = ["GET /api/v1/models"];
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = 2;

type Load = { rps: number; requests: number; mbps: number; p50: number; p99: number; errors: number };

async function drive(url: string): Promise<Load> {
  const gen = child("./loadgen.ts", [url, "100", String(SECONDS)]);
  const result = await gen.ask<Load>(null);
  await gen.stop();
  return result;
}

export async function run(): Promise<Row[]> {
  const app = child("./serve.ts", ["app", "500", "50"]);
  const { port } = await app.ask<{ port: number }>(null);
  const url = `http://127.0.0.1:${port}/api/v1/models`;
  const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
  const file = join(tmpdir(), `llmgw-bench-models-${process.pid}.json`);
  await writeFile(file, bytes);
  const bare = child("./serve.ts", ["bare-json", file]);
  const barePort = (await bare.ask<{ port: number }>(null)).port;
  const bareUrl = `http://127.0.0.1:${barePort}/api/v1/models`;
  console.log(
    `GET /api/v1/models: ${(bytes.length / 1000).toFixed(0)} kB per answer, ${ROUNDS} rounds of ${SECONDS} s each, alternating`,
  );
  const apps: Load[] = [];
  const bares: Load[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    apps.push(await drive(url));
    bares.push(await drive(bareUrl));
  }
  await Promise.all([app.stop(), bare.stop()]);
  const best = (loads: Load[]) => loads.reduce((a, b) => (b.rps > a.rps ? b : a));
  const a = best(apps);
  const b = best(bares);
  const fmt = (l: Load) =>
    `${l.rps.toFixed(0)} req/s (p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms, ${l.errors} errors)`;
  console.table(
    [
      ...apps.map((l) => ({ server: "llmgw", ...l })),
      ...bares.map((l) => ({ server: "bare Hono", ...l })),
    ].map((l) => ({
      ...l,
      rps: l.rps.toFixed(0),
      mbps: l.mbps.toFixed(1),
      p50: l.p50.toFixed(1),
      p99: l.p99.toFixed(1),
    })),
  );
  const ratio = a.rps / b.rps;
  return [
    {
      measure: "GET /api/v1/models, 500 models, 100 connections (best round)",
      value: fmt(a),
      peer: `bare Hono, same bytes: ${fmt(b)}`,
      ratio: `${ratio.toFixed(2)}×`,
      aim: "≥ 0.5× peer",
      met: ratio >= 0.5,
    },
  ];
}

// SPEC §12: what counting usage and holding a token's budget cost on the request path. The server's
// CPU (process.cpuUsage in its own process, budgetServer.ts) per proxied chat completion, with
// counting and a budget on, against the same run with both off; fresh servers for every run, the
// two kinds alternating, the engine (a stand-in) in this process so its CPU is not the server's.
import { StandInEngine } from "@llmgw/simulation";
import { child, median, type Row } from "./report";

export const names = ["budget cpu"];
const RUNS = Number(process.env.BENCH_BUDGET_RUNS ?? 3);
const REQUESTS = Number(process.env.BENCH_BUDGET_REQUESTS ?? 1500);
const WARM = 200;
const CLIENTS = 8;

const spread = (xs: number[]) =>
  `min ${Math.min(...xs).toFixed(0)} / median ${median(xs).toFixed(0)} / max ${Math.max(...xs).toFixed(0)} µs`;

async function once(mode: "on" | "off", engine: StandInEngine): Promise<number> {
  const server = child("./budgetServer.ts", [mode, engine.url]);
  try {
    const { port, secret, model } = await server.ask<{ port: number; secret: string; model: string }>(null);
    const send = async (count: number) => {
      let next = 0;
      const client = async () => {
        while (next < count) {
          next++;
          const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
            method: "POST",
            headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
            body: JSON.stringify({
              model,
              max_tokens: 16,
              messages: [{ role: "user", content: "How much?" }],
            }),
          });
          if (res.status !== 200) throw new Error(`${mode}: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, client));
    };
    await send(WARM);
    const before = await server.ask<{ cpuMs: number }>({ cmd: "usage" });
    await send(REQUESTS);
    const after = await server.ask<{ cpuMs: number }>({ cmd: "usage" });
    return ((after.cpuMs - before.cpuMs) * 1000) / REQUESTS;
  } finally {
    server.proc.kill("SIGTERM");
    await new Promise((resolve) => server.proc.once("exit", resolve));
  }
}

export async function run(): Promise<Row[]> {
  const engine = await StandInEngine.start({ replyTokens: 16, tokensPerSecond: 1_000_000 });
  const on: number[] = [];
  const off: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      off.push(await once("off", engine));
      on.push(await once("on", engine));
    }
  } finally {
    await engine.close();
  }
  const ratio = median(on) / median(off);
  return [
    {
      measure: `server CPU per proxied request, usage counted and a budget held (${REQUESTS} requests, ${CLIENTS} clients, ${RUNS} fresh servers)`,
      value: spread(on),
      peer: `without counting or budget: ${spread(off)}`,
      ratio: `${ratio.toFixed(2)}×`,
      aim: "≤ 1.2× without",
      met: ratio <= 1.2,
    },
  ];
}

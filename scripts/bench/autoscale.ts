// Capacity follows traffic (SPEC §9), three figures:
//
// - reaction: a real `llmgw serve` (scheduler on, heartbeats every second, a window of 2 s) and one
//   simulated node (the real agent; engines that load in exactly LOAD_MS). An autoscaled model
//   {min 1, max 3} whose replicas take one request each (`--parallel 1`). A burst of 3 clients
//   that keep sending: from the burst's first request (its second one is the first queued) to the
//   last added replica `ready` (replica.changed on /api/v1/events), minus LOAD_MS. Then the burst
//   stops, the window passes, the extras drain and stop, and the next run starts from 1 replica.
// - the autoscaler's CPU at 2,000 models with traffic on 500 (autoscaleCpu.ts, its own process).
// - demand recording, 10 processes × 2,000 models on one PostgreSQL (autoscaleRecord.ts).
import { connect } from "@llmgw/client";
import { child, median, type Row } from "./report";
import { listen, until } from "./stream";

export const names = ["autoscale reaction", "autoscaler cpu", "demand recording"];
const RUNS = Number(process.env.BENCH_AUTOSCALE_RUNS ?? 3);
const LOAD_MS = 500;
const MODEL = "burst";
/** Waits for replicas placed and started on heartbeats: a minute before the bench gives up. */
const within = <T>(what: string, check: () => Promise<T | null> | T | null) => until(what, check, 60_000);

const spread = (xs: number[], unit = "ms", digits = 0) =>
  `${median(xs).toFixed(digits)} ${unit} median (min ${Math.min(...xs).toFixed(digits)}, max ${Math.max(...xs).toFixed(digits)})`;

async function reaction(): Promise<Row[]> {
  const server = child("./serve.ts", ["scheduled", "1", "2"]);
  const { port } = await server.ask<{ port: number }>(null);
  const base = `http://127.0.0.1:${port}`;
  const { api, answer } = connect({ server: base });
  const agent = child("./simAgent.ts", [base, String(LOAD_MS), "1", "exact"]);
  const stream = new AbortController();
  try {
    await agent.ask(null);
    const events = await listen(`${base}/api/v1/events`, stream.signal);
    await answer(
      api.models.$post({
        json: {
          name: MODEL,
          source: `http://127.0.0.1/mirror/${MODEL}/v1/${MODEL}.gguf`,
          contextLength: 4096,
          scaling: { min: 1, max: 3 },
          profiles: [
            { name: "cpu", engine: "llamacpp", args: ["--parallel", "1"], minMemoryGB: 1, cpuCores: 1 },
          ],
        },
      }),
    );
    const ready = async () =>
      (await answer(api.fleet.replicas.$get())).filter(
        (r) => r.model === MODEL && r.state === "ready" && r.drainingSince === undefined,
      );
    const running = async () => (await answer(api.fleet.replicas.$get())).filter((r) => r.model === MODEL);
    const once = async (): Promise<number> => {
      await within("one replica, alone", async () => {
        const all = await running();
        return all.length === 1 && all[0]?.state === "ready" ? true : null;
      });
      const before = new Set((await running()).map((r) => r.id));
      const from = events.length;
      let going = true;
      const client = async () => {
        while (going) {
          const res = await fetch(`${base}/v1/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "Busy?" }] }),
          });
          await res.arrayBuffer();
        }
      };
      const sent = performance.now();
      const clients = [client(), client(), client()];
      const readyAt = await within("two added replicas ready", () => {
        const added = new Map<string, number>();
        for (const e of events.slice(from)) {
          if (e.type !== "replica.changed" || e.data.model !== MODEL || before.has(e.data.id)) continue;
          if (e.data.state === "ready" && e.data.endpoint !== null && !added.has(e.data.id))
            added.set(e.data.id, e.at);
        }
        return added.size >= 2 ? Math.max(...added.values()) : null;
      });
      going = false;
      await Promise.all(clients);
      return readyAt - sent - LOAD_MS;
    };
    await within("the first replica ready", async () => ((await ready()).length === 1 ? true : null));
    console.log(`autoscale reaction warm-up (not counted): ${(await once()).toFixed(0)} ms`);
    const runs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(await once());
      console.log(`autoscale reaction run ${i + 1}/${RUNS}: ${runs.at(-1)?.toFixed(0)} ms`);
    }
    return [
      {
        measure: `autoscale reaction: a burst's first request → the added replicas ready, minus the engine's load (${LOAD_MS} ms); ${RUNS} runs`,
        value: spread(runs),
        peer: "Knative decides every 2 s; Ray Serve's upscale delay 30 s (documented)",
        aim: "≤ 1.5 s median",
        met: median(runs) <= 1500,
      },
    ];
  } finally {
    stream.abort();
    await agent.stop();
    await server.stop();
  }
}

export async function run(only: RegExp | null): Promise<Row[]> {
  const rows: Row[] = [];
  if (!only || only.test("autoscale reaction")) rows.push(...(await reaction()));
  if (!only || only.test("autoscaler cpu")) {
    const cpu = child("./autoscaleCpu.ts");
    try {
      rows.push(...(await cpu.ask<{ rows: Row[] }>(null)).rows);
    } finally {
      await cpu.stop();
    }
  }
  if (!only || only.test("demand recording")) {
    const record = child("./autoscaleRecord.ts");
    try {
      rows.push(...(await record.ask<{ rows: Row[] }>(null)).rows);
    } finally {
      await record.stop();
    }
  }
  return rows;
}

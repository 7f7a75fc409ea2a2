// An on-demand model's cold start through the gateway (SPEC §7.2), split into its phases. A real
// `llmgw serve` (startServer: embedded store, scheduler on, heartbeats every HEARTBEAT s) and one
// simulated node (the real agent over simulated engines that load in about READY_MS) run as child
// processes. Each run sends a streamed chat completion for a model with no replica and times, on
// this process's clock: the request sent (the wake), the replica placed on the node (replica.changed
// `starting` on /api/v1/events), the engine ready (replica.changed `ready` with its endpoint), and
// the first byte of the answer. Then the model is left to go idle (idleTimeoutSeconds 1) until its
// replica is gone, and the next run wakes it again, at a random point of the heartbeat interval
// (the model goes idle on a heartbeat: waking it at once would always catch the agent just after
// one). placed → ready is mostly the agent's cadence, not llmgw's: the agent hears of the placement
// on its next heartbeat (up to one interval), checks the engine's health once a second (the
// Supervisor's default) so a 500 ms load counts as 1 s, and reports it ready on the heartbeat after:
// read the figures beside HEARTBEAT and READY_MS. Informational: the issue sets no aim.

import { connect } from "@llmgw/client";
import type { ReplicaChange } from "@llmgw/domain";
import { child, median, type Row } from "./report";
import { listen, until } from "./stream";

export const names = ["cold start"];
const RUNS = Number(process.env.BENCH_COLDSTART_RUNS ?? 5);
const HEARTBEAT = Number(process.env.BENCH_COLDSTART_HEARTBEAT ?? 1);
const READY_MS = Number(process.env.BENCH_COLDSTART_READY_MS ?? 500);
const MODEL = "cold";
const NODE = "cold-node";

type Phases = { placed: number; ready: number; firstByte: number; total: number };

const spread = (xs: number[]) =>
  `min ${Math.min(...xs).toFixed(0)} / median ${median(xs).toFixed(0)} / max ${Math.max(...xs).toFixed(0)} ms`;

export async function run(): Promise<Row[]> {
  const server = child("./serve.ts", ["scheduled", String(HEARTBEAT)]);
  const { port } = await server.ask<{ port: number }>(null);
  const base = `http://127.0.0.1:${port}`;
  const { api, answer } = connect({ server: base });
  const agent = child("./simAgent.ts", [base, String(READY_MS), String(HEARTBEAT)]);
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
          scaling: { min: 0, max: 1, idleTimeoutSeconds: 1 },
          profiles: [{ name: "cpu", engine: "llamacpp", minMemoryGB: 1, cpuCores: 1 }],
        },
      }),
    );
    await until("the node's first heartbeat", async () => {
      const nodes = await answer(api.fleet.nodes.$get());
      return nodes.some((n) => n.name === NODE && n.state === "ready") ? true : null;
    });

    const ofModel = (from: number, test: (data: ReplicaChange) => boolean) => () =>
      events
        .slice(from)
        .find((e) => e.type === "replica.changed" && e.data.model === MODEL && test(e.data)) ?? null;
    const idle = () =>
      until("the model to go idle", async () => {
        const replicas = await answer(api.fleet.replicas.$get());
        return replicas.some((r) => r.model === MODEL) ? null : true;
      });

    const once = async (): Promise<Phases> => {
      await idle();
      await new Promise((resolve) => setTimeout(resolve, Math.random() * HEARTBEAT * 1000));
      const from = events.length;
      const sent = performance.now();
      const res = await fetch(`${base}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: MODEL,
          messages: [{ role: "user", content: "Wake up." }],
          stream: true,
        }),
      });
      if (!res.ok || !res.body) throw new Error(`/v1/chat/completions: ${res.status} ${await res.text()}`);
      const reader = res.body.getReader();
      const first = await reader.read();
      const firstByte = performance.now();
      if (first.done) throw new Error("/v1/chat/completions: an empty answer");
      while (!(await reader.read()).done) {}
      const placed = await until(
        "the replica.changed placing it",
        ofModel(from, (d) => d.state === "starting" && typeof d.node === "string"),
        5_000,
      );
      const ready = await until(
        "the replica.changed turning it ready",
        ofModel(from, (d) => d.state === "ready" && typeof d.endpoint === "string"),
        5_000,
      );
      return {
        placed: placed.at - sent,
        ready: ready.at - placed.at,
        firstByte: firstByte - ready.at,
        total: firstByte - sent,
      };
    };

    const show = (p: Phases) =>
      `wake→placed ${p.placed.toFixed(0)}, placed→ready ${p.ready.toFixed(0)}, ready→first byte ${p.firstByte.toFixed(0)}, total ${p.total.toFixed(0)} ms`;
    // The first wake also warms this process, the server's and the agent's code paths: not counted.
    console.log(`cold start warm-up (not counted): ${show(await once())}`);
    const runs: Phases[] = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(await once());
      console.log(`cold start run ${i + 1}/${RUNS}: ${show(runs.at(-1) as Phases)}`);
    }
    await idle();
    const setting = `heartbeats every ${HEARTBEAT} s, health checks every 1 s, simulated engine loads in ${READY_MS} ms ±25%`;
    const row = (phase: string, key: keyof Phases, peer?: string): Row => ({
      measure: `cold start of an on-demand model through the gateway, ${phase} (${RUNS} runs)`,
      value: spread(runs.map((r) => r[key])),
      ...(peer ? { peer } : {}),
      aim: "reported",
      met: null,
    });
    return [
      row("wake → placed", "placed"),
      row("placed → engine ready", "ready", setting),
      row("engine ready → first byte", "firstByte"),
      row("total: request sent → first byte", "total", setting),
    ];
  } finally {
    stream.abort();
    await agent.stop();
    await server.stop();
  }
}

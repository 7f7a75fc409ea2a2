// A rollout under load (SPEC §11.2), three figures. A real `llmgw serve` (scheduler on, heartbeats
// every second) and one simulated node (the real agent; engines healthy after exactly LOAD_MS). A
// model of 4 replicas; 16 clients stream chat completions one after another the whole time. Each
// run PATCHes the model's source (a new revision) and times, on this process's clock:
// - failed requests at the clients during the run (a status other than 200, or a broken stream);
// - PATCH → the last replica of the old revision gone from the fleet (it drained, then stopped);
// - time to first token (the first body byte of a streamed answer): p99 over the 5 s before the
//   PATCH and p99 over the rollout, and their ratio.
// Each run also prints where the time went, from the event stream: the new replicas placed,
// ready, the old ones draining, stopping and gone (first and last of each, ms after the PATCH).
import { connect } from "@llmgw/client";
import { child, median, percentile, type Row } from "./report";
import { listen, type StampedEvent, until } from "./stream";

export const names = ["rollout under load"];
const RUNS = Number(process.env.BENCH_ROLLOUT_RUNS ?? 3);
const CLIENTS = 16;
const REPLICAS = 4;
const LOAD_MS = 500;
const BEFORE_MS = 5_000;
const MODEL = "rolling";

const spread = (xs: number[], unit = "ms", digits = 0) =>
  `min ${Math.min(...xs).toFixed(digits)} / median ${median(xs).toFixed(digits)} / max ${Math.max(...xs).toFixed(digits)} ${unit}`;

const sourceOf = (version: number) => `http://127.0.0.1/mirror/${MODEL}/v${version}/${MODEL}.gguf`;

export async function run(): Promise<Row[]> {
  const server = child("./serve.ts", ["scheduled", "1"]);
  const { port } = await server.ask<{ port: number }>(null);
  const base = `http://127.0.0.1:${port}`;
  const { api, answer } = connect({ server: base });
  const agent = child("./simAgent.ts", [base, String(LOAD_MS), "1", "exact"]);
  const closing = new AbortController();
  const events = await listen(`${base}/api/v1/events`, closing.signal);
  let going = true;
  /** Each answer: when it was sent (performance.now()), its time to first byte, and whether it failed. */
  const answers: { at: number; ttft: number | null; failed: boolean }[] = [];
  const client = async () => {
    while (going) {
      const at = performance.now();
      try {
        const res = await fetch(`${base}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model: MODEL,
            stream: true,
            max_tokens: 16,
            messages: [{ role: "user", content: "Still there?" }],
          }),
        });
        let ttft: number | null = null;
        const reader = res.body?.getReader();
        for (;;) {
          const chunk = await reader?.read();
          if (!chunk || chunk.done) break;
          ttft ??= performance.now() - at;
        }
        answers.push({ at, ttft, failed: res.status !== 200 || ttft === null });
      } catch {
        answers.push({ at, ttft: null, failed: true });
      }
    }
  };
  const clients: Promise<void>[] = [];
  try {
    await agent.ask(null);
    await answer(
      api.models.$post({
        json: {
          name: MODEL,
          source: sourceOf(1),
          contextLength: 4096,
          scaling: { min: REPLICAS, max: REPLICAS },
          profiles: [{ name: "cpu", engine: "llamacpp", minMemoryGB: 1, cpuCores: 1 }],
        },
      }),
    );
    const replicas = async () => (await answer(api.fleet.replicas.$get())).filter((r) => r.model === MODEL);
    await until(
      "4 replicas ready",
      async () => ((await replicas()).filter((r) => r.state === "ready").length === REPLICAS ? true : null),
      60_000,
    );
    for (let i = 0; i < CLIENTS; i++) clients.push(client());

    const failed: number[] = [];
    const stopped: number[] = [];
    const ratios: number[] = [];
    const p99s: { before: number; during: number }[] = [];
    for (let runNo = 1; runNo <= RUNS; runNo++) {
      await new Promise((resolve) => setTimeout(resolve, BEFORE_MS));
      const model = await answer(api.models[":name"].$get({ param: { name: MODEL } }));
      const from = answers.length;
      const patchedAt = performance.now();
      await answer(
        api.models[":name"].$patch(
          { param: { name: MODEL }, json: { source: sourceOf(runNo + 1) } },
          { headers: { "If-Match": `"${model.version}"` } },
        ),
      );
      const to = model.revision + 1;
      await until(
        "the last old replica stopped",
        async () => ((await replicas()).every((r) => r.revision === to) ? true : null),
        120_000,
      );
      const doneAt = performance.now();
      stopped.push(doneAt - patchedAt);
      console.log(`rollout run ${runNo}/${RUNS}: ${timeline(events, patchedAt, to)}`);
      const before = answers
        .slice(0, from)
        .filter((a) => a.at >= patchedAt - BEFORE_MS && a.ttft !== null)
        .map((a) => a.ttft ?? 0);
      const during = answers.slice(from).filter((a) => a.at <= doneAt);
      failed.push(during.filter((a) => a.failed).length);
      const p99 = {
        before: percentile(before, 99),
        during: percentile(
          during.filter((a) => a.ttft !== null).map((a) => a.ttft ?? 0),
          99,
        ),
      };
      p99s.push(p99);
      ratios.push(p99.during / p99.before);
      console.log(
        `rollout run ${runNo}/${RUNS}: ${during.length} answers, ${failed.at(-1)} failed; PATCH → last old stopped ${stopped.at(-1)?.toFixed(0)} ms; p99 TTFT ${p99.before.toFixed(0)} ms before, ${p99.during.toFixed(0)} ms during`,
      );
    }
    return [
      {
        measure: `rollout of ${REPLICAS} replicas under ${CLIENTS} streaming clients: failed requests (${RUNS} runs)`,
        value: `${failed.reduce((a, b) => a + b, 0)} (per run ${failed.join(", ")})`,
        aim: "0",
        met: failed.every((n) => n === 0),
      },
      {
        measure: `rollout: PATCH → the last old replica stopped (engine load ${LOAD_MS} ms, heartbeat 1 s)`,
        value: spread(stopped),
        aim: `≤ load + 3 s (${LOAD_MS + 3000} ms)`,
        met: median(stopped) <= LOAD_MS + 3000,
      },
      {
        measure: "rollout: p99 time to first token during the rollout ÷ before it",
        value: `${spread(ratios, "×", 2)} (p99 before ${spread(p99s.map((p) => p.before))}, during ${spread(p99s.map((p) => p.during))})`,
        aim: "≤ 1.5×",
        met: median(ratios) <= 1.5,
      },
    ];
  } finally {
    going = false;
    closing.abort();
    await Promise.all(clients);
    await agent.stop();
    await server.stop();
  }
}

type ReplicaSeen = {
  id: string;
  revision?: number;
  state: string;
  drainingSince?: string;
  removed?: boolean;
};

/** Where a run's time went: the first and last of each step of the rollout, ms after the PATCH. */
function timeline(events: StampedEvent[], patchedAt: number, to: number): string {
  const firsts = new Map<string, Map<string, number>>();
  const seen = (step: string, id: string, at: number) => {
    const byId = firsts.get(step) ?? new Map<string, number>();
    if (!byId.has(id)) byId.set(id, at - patchedAt);
    firsts.set(step, byId);
  };
  for (const event of events) {
    if (event.at < patchedAt || event.type !== "replica.changed") continue;
    const r = event.data as ReplicaSeen;
    const fresh = r.revision === to;
    if (fresh && r.state === "starting") seen("new placed", r.id, event.at);
    if (fresh && r.state === "ready") seen("new ready", r.id, event.at);
    if (!fresh && r.drainingSince !== undefined) seen("old draining", r.id, event.at);
    if (!fresh && r.state === "stopping") seen("old stopping", r.id, event.at);
    if (!fresh && r.removed) seen("old gone", r.id, event.at);
  }
  return [...firsts]
    .map(([step, byId]) => {
      const ats = [...byId.values()];
      return `${step} ${Math.min(...ats).toFixed(0)}–${Math.max(...ats).toFixed(0)}`;
    })
    .join(", ");
}

// A rollout under load (SPEC §11.2), three figures. A real `llmgw serve` (scheduler on, heartbeats
// every second) and one simulated node (the real agent; engines healthy after exactly LOAD_MS). A
// model of 4 replicas; 16 clients stream chat completions one after another the whole time. Each
// run PATCHes the model's source (a new revision) and times, on this process's clock:
// - failed requests at the clients during the run (a status other than 200, or a broken stream);
// - PATCH → the last replica of the old revision gone from the fleet (it drained, then stopped),
//   read off the event stream (polling the fleet would load the server during the rollout alone);
// - time to first token (the first body byte of a streamed answer) of the requests whose wait for
//   it overlaps the rollout, against those sent and answered in the 5 s before the PATCH: p99 over
//   all runs pooled, and their ratio. One run holds ~100 answers, so its p99 is its slowest one:
//   pooled over BENCH_ROLLOUT_RUNS (default 6) it is what 1 request in 100 sent during a rollout
//   sees. Each run's p99 is printed too.
// Each run also prints where the time went, from the event stream: the new replicas placed,
// ready, the old ones draining, stopping and gone (first and last of each, ms after the PATCH);
// its slowest answers, with the replica (the simulated engine's `system_fingerprint`) and revision
// that served each and where that replica stood; and the slowest answer of each 250 ms.
import { connect } from "@llmgw/client";
import { child, median, percentile, type Row } from "./report";
import { listen, type StampedEvent, until } from "./stream";

export const names = ["rollout under load"];
const RUNS = Number(process.env.BENCH_ROLLOUT_RUNS ?? 6);
const CLIENTS = 16;
const REPLICAS = 4;
const LOAD_MS = 500;
const BEFORE_MS = 5_000;
const MODEL = "rolling";

const spread = (xs: number[], unit = "ms", digits = 0) =>
  `min ${Math.min(...xs).toFixed(digits)} / median ${median(xs).toFixed(digits)} / max ${Math.max(...xs).toFixed(digits)} ${unit}`;

/** `firstAt`: when its first byte came (performance.now()), or when it failed. */
type Answer = { at: number; firstAt: number; ttft: number | null; failed: boolean; replica: string | null };
const FINGERPRINT = /"system_fingerprint":"([^"]+)"/;
const decoder = new TextDecoder();
/** How many of each run's slowest answers are told, with where they went and when. */
const SLOWEST = 5;

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
  /**
   * Each answer: when it was sent (performance.now()), its time to first byte, whether it failed,
   * and the replica that answered (the simulated engine's `system_fingerprint`).
   */
  const answers: Answer[] = [];
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
        let replica: string | null = null;
        const reader = res.body?.getReader();
        for (;;) {
          const chunk = await reader?.read();
          if (!chunk || chunk.done) break;
          ttft ??= performance.now() - at;
          replica ??= FINGERPRINT.exec(decoder.decode(chunk.value))?.[1] ?? null;
        }
        const firstAt = ttft === null ? performance.now() : at + ttft;
        answers.push({ at, firstAt, ttft, failed: res.status !== 200 || ttft === null, replica });
      } catch {
        answers.push({ at, firstAt: performance.now(), ttft: null, failed: true, replica: null });
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
    const ttfts: { before: number[]; during: number[] } = { before: [], during: [] };
    const p99s: { before: number; during: number }[] = [];
    /** Each replica of the model as the event stream last told it: the end of a run is read here, not polled. */
    const fleet = new Map<string, ReplicaSeen>();
    for (const r of await replicas()) fleet.set(r.id, r);
    let told = 0;
    const follow = () => {
      for (; told < events.length; told++) {
        const event = events[told];
        if (event?.type !== "replica.changed") continue;
        const r = event.data as ReplicaSeen & { model: string };
        if (r.model !== MODEL) continue;
        if (r.removed) fleet.delete(r.id);
        else fleet.set(r.id, r);
      }
    };
    for (let runNo = 1; runNo <= RUNS; runNo++) {
      await new Promise((resolve) => setTimeout(resolve, BEFORE_MS));
      const model = await answer(api.models[":name"].$get({ param: { name: MODEL } }));
      const patchedAt = performance.now();
      await answer(
        api.models[":name"].$patch(
          { param: { name: MODEL }, json: { source: sourceOf(runNo + 1) } },
          { headers: { "If-Match": `"${model.version}"` } },
        ),
      );
      const to = model.revision + 1;
      // Read off the event stream this process holds already: polling the fleet would load the
      // server during the rollout alone.
      await until(
        "the last old replica stopped",
        () => {
          follow();
          return [...fleet.values()].every((r) => r.revision === to) ? true : null;
        },
        120_000,
      );
      const doneAt = performance.now();
      stopped.push(doneAt - patchedAt);
      // Let the requests sent before the end answer.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      console.log(`rollout run ${runNo}/${RUNS}: ${timeline(events, patchedAt, to)}`);
      // A request is "during" when its wait for the first token overlaps the rollout: sent before
      // the last old replica stopped, first byte (or failure) after the PATCH. "Before": sent in
      // the 5 s before the PATCH and answered before it.
      const before = answers.filter((a) => a.at >= patchedAt - BEFORE_MS && a.firstAt < patchedAt);
      const during = answers.filter((a) => a.at <= doneAt && a.firstAt >= patchedAt);
      failed.push(during.filter((a) => a.failed).length);
      const timed = (xs: Answer[]) => xs.filter((a) => a.ttft !== null).map((a) => a.ttft ?? 0);
      ttfts.before.push(...timed(before));
      ttfts.during.push(...timed(during));
      const p99 = { before: percentile(timed(before), 99), during: percentile(timed(during), 99) };
      p99s.push(p99);
      console.log(`rollout run ${runNo}/${RUNS}: slowest before: ${slowest(before, events, patchedAt, to)}`);
      console.log(`rollout run ${runNo}/${RUNS}: slowest during: ${slowest(during, events, patchedAt, to)}`);
      console.log(
        `rollout run ${runNo}/${RUNS}: slowest by 250 ms from the PATCH: ${byQuarter(during, patchedAt)}`,
      );
      console.log(
        `rollout run ${runNo}/${RUNS}: ${during.length} answers, ${failed.at(-1)} failed; PATCH → last old stopped ${stopped.at(-1)?.toFixed(0)} ms; TTFT before median ${median(timed(before)).toFixed(0)} p99 ${p99.before.toFixed(0)} ms, during median ${median(timed(during)).toFixed(0)} p99 ${p99.during.toFixed(0)} ms`,
      );
    }
    const pooled = { before: percentile(ttfts.before, 99), during: percentile(ttfts.during, 99) };
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
        measure: `rollout: p99 time to first token during the rollouts ÷ in the 5 s before them (${RUNS} runs pooled)`,
        value: `${(pooled.during / pooled.before).toFixed(2)}× (${pooled.during.toFixed(0)} ms over ${ttfts.during.length} answers during, ${pooled.before.toFixed(0)} ms over ${ttfts.before.length} before; per run p99 before ${spread(p99s.map((p) => p.before))}, during ${spread(p99s.map((p) => p.during))})`,
        aim: "≤ 1.5×",
        met: pooled.during / pooled.before <= 1.5,
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

/**
 * The slowest answers of `answers` (by time to first byte): when each was sent (ms after the
 * PATCH), its time to first byte, the replica that answered (its revision, and where that replica
 * stood when the request was sent: ms since it turned ready, or since its drain began).
 */
function slowest(answers: Answer[], events: StampedEvent[], patchedAt: number, to: number): string {
  const ready = new Map<string, number>();
  const draining = new Map<string, number>();
  const revision = new Map<string, number | undefined>();
  for (const event of events) {
    if (event.type !== "replica.changed") continue;
    const r = event.data as ReplicaSeen;
    revision.set(r.id, r.revision);
    if (r.state === "ready" && !ready.has(r.id)) ready.set(r.id, event.at);
    if (r.drainingSince !== undefined && !draining.has(r.id)) draining.set(r.id, event.at);
  }
  return [...answers]
    .sort((a, b) => (b.ttft ?? Number.POSITIVE_INFINITY) - (a.ttft ?? Number.POSITIVE_INFINITY))
    .slice(0, SLOWEST)
    .map((a) => {
      const id = a.replica ?? "?";
      const rev = revision.get(id);
      const side = rev === to ? "new" : "old";
      const since = (at: number | undefined, what: string) =>
        at === undefined ? "" : ` ${what}${(a.at - at).toFixed(0)}`;
      const place =
        draining.has(id) && (draining.get(id) ?? 0) <= a.at
          ? since(draining.get(id), "draining+")
          : since(ready.get(id), "ready+");
      return `${a.ttft === null ? "failed" : `${a.ttft.toFixed(0)} ms`} sent@${(a.at - patchedAt).toFixed(0)} on ${id.slice(-8)} (${side} r${rev ?? "?"}${place})`;
    })
    .join("; ");
}

/** The slowest time to first token of the answers sent in each 250 ms after the PATCH. */
function byQuarter(answers: Answer[], patchedAt: number): string {
  const worst = new Map<number, number>();
  for (const a of answers) {
    const quarter = Math.floor((a.at - patchedAt) / 250);
    worst.set(quarter, Math.max(worst.get(quarter) ?? 0, a.ttft ?? Number.POSITIVE_INFINITY));
  }
  return [...worst]
    .sort(([a], [b]) => a - b)
    .map(([q, ms]) => `${q * 250}:${ms.toFixed(0)}`)
    .join(" ");
}

// The gateway bench's clients, in their own process, over keep-alive node:http connections:
//   latency URL CONCURRENCY SECONDS                  closed-loop small chat completions (not streamed)
//   streamed URL CONCURRENCY SECONDS CHUNKS EVERY_MS  closed-loop streamed completions of CHUNKS chunks
//   streams URL COUNT CHUNKS EVERY_MS                COUNT streamed completions at once; for every
//                                                    chunk, how long after the engine wrote it it
//                                                    arrived here
// It says `{ ready: true }` once started and waits for `go`, so the parent can read the server's
// CPU time from /proc right before the load begins and right after its result comes back.
import { Agent, request } from "node:http";
import { percentile, wallNow } from "./report";

const [mode = "", url = "", a = "1", b = "5", c = "20", d = "5"] = process.argv.slice(2);
const target = new URL(url);

function post(agent: Agent, body: string, onChunk?: (text: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (text: string) => onChunk?.(text));
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * `concurrency` clients, each sending `body` again as soon as its answer has ended, for a warm-up
 * second and then `seconds`. `requests` counts every answer the server sent, warm-up included (the
 * server's CPU is read around the whole run).
 */
async function closedLoop(concurrency: number, seconds: number, body: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let requests = 0;
  const drive = async (ms: number, record: boolean) => {
    const until = performance.now() + ms;
    const latencies: number[] = [];
    let errors = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < until) {
          const start = performance.now();
          const status = await post(agent, body, () => {}).catch(() => 0);
          requests++;
          if (status !== 200) errors++;
          else if (record) latencies.push(performance.now() - start);
        }
      }),
    );
    return { latencies, errors };
  };
  await drive(1000, false);
  const started = performance.now();
  const { latencies, errors } = await drive(seconds * 1000, true);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  return {
    rps: latencies.length / elapsed,
    requests,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    min: Math.min(...latencies),
    max: Math.max(...latencies),
    errors,
  };
}

const SMALL = JSON.stringify({ model: "bench", messages: [{ role: "user", content: "hi" }], max_tokens: 1 });

/** A chat completion whose prompt is `bytes` long: a system prompt and a question (SPEC §7.1a reads it). */
function promptBody(bytes: number): string {
  const system = "Answer from the handbook below. ".repeat(Math.ceil(bytes / 32)).slice(0, bytes);
  return JSON.stringify({
    model: "bench",
    messages: [
      { role: "system", content: system },
      { role: "user", content: "hi" },
    ],
    max_tokens: 1,
  });
}

function streamedBody(chunks: number, everyMs: number): string {
  return JSON.stringify({
    model: "bench",
    stream: true,
    messages: [{ role: "user", content: "hi" }],
    bench_chunks: chunks,
    bench_every_ms: everyMs,
  });
}

async function streams(count: number, chunks: number, everyMs: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: count });
  const body = streamedBody(chunks, everyMs);
  const delays: number[] = [];
  let errors = 0;
  let received = 0;
  await Promise.all(
    Array.from({ length: count }, async () => {
      let rest = "";
      const status = await post(agent, body, (text) => {
        const at = wallNow();
        rest += text;
        const events = rest.split("\n\n");
        rest = events.pop() ?? "";
        for (const event of events) {
          const sent = /"sent":([0-9.]+)/.exec(event)?.[1];
          if (sent === undefined) continue;
          received++;
          delays.push(at - Number(sent));
        }
      }).catch(() => 0);
      if (status !== 200) errors++;
    }),
  );
  agent.destroy();
  return {
    chunks: received,
    p50: percentile(delays, 50),
    p99: percentile(delays, 99),
    max: Math.max(...delays),
    errors,
  };
}

process.send?.({ ready: true });
await new Promise<void>((resolve) => process.once("message", () => resolve()));
const result =
  mode === "latency"
    ? await closedLoop(Number(a), Number(b), SMALL)
    : mode === "streamed"
      ? await closedLoop(Number(a), Number(b), streamedBody(Number(c), Number(d)))
      : mode === "prompt"
        ? await closedLoop(Number(a), Number(b), promptBody(Number(c)))
        : await streams(Number(a), Number(b), Number(c));
process.send?.(result);

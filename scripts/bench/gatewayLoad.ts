// The gateway bench's clients, in their own process, over keep-alive node:http connections:
//   latency URL CONCURRENCY SECONDS       closed-loop small chat completions (not streamed)
//   streams URL COUNT CHUNKS EVERY_MS     COUNT streamed completions at once; for every chunk, how
//                                         long after the engine wrote it it arrived here
import { Agent, request } from "node:http";
import { percentile, wallNow } from "./report";

const [mode = "", url = "", a = "1", b = "5", c = "20"] = process.argv.slice(2);
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

async function latency(concurrency: number, seconds: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const body = JSON.stringify({ model: "bench", messages: [{ role: "user", content: "hi" }], max_tokens: 1 });
  const drive = async (ms: number, record: boolean) => {
    const until = performance.now() + ms;
    const latencies: number[] = [];
    let errors = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < until) {
          const start = performance.now();
          const status = await post(agent, body).catch(() => 0);
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
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    min: Math.min(...latencies),
    max: Math.max(...latencies),
    errors,
  };
}

async function streams(count: number, chunks: number, everyMs: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: count });
  const body = JSON.stringify({
    model: "bench",
    stream: true,
    messages: [{ role: "user", content: "hi" }],
    bench_chunks: chunks,
    bench_every_ms: everyMs,
  });
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

const result =
  mode === "latency" ? await latency(Number(a), Number(b)) : await streams(Number(a), Number(b), Number(c));
process.send?.(result);

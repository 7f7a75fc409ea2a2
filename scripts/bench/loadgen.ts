// A closed-loop HTTP load generator in its own process: CONNECTIONS keep-alive connections, each
// sending the next GET as soon as the last answer is read, for SECONDS (after a one-second warm-up).
import { Agent, request } from "node:http";
import { percentile } from "./report";

const [url = "", connectionsText = "100", secondsText = "5"] = process.argv.slice(2);
const connections = Number(connectionsText);
const agent = new Agent({ keepAlive: true, maxSockets: connections });
const target = new URL(url);

function get(): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, agent }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on("end", () =>
        res.statusCode === 200 ? resolve(bytes) : reject(new Error(`status ${res.statusCode}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

async function drive(ms: number, record: boolean) {
  const until = performance.now() + ms;
  const latencies: number[] = [];
  let bytes = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const start = performance.now();
        try {
          const n = await get();
          bytes += n;
          if (record) latencies.push(performance.now() - start);
        } catch {
          errors++;
        }
      }
    }),
  );
  return { latencies, bytes, errors };
}

await drive(1000, false);
const started = performance.now();
const { latencies, bytes, errors } = await drive(Number(secondsText) * 1000, true);
const seconds = (performance.now() - started) / 1000;
process.send?.({
  rps: latencies.length / seconds,
  requests: latencies.length,
  mbps: bytes / seconds / 1e6,
  p50: percentile(latencies, 50),
  p99: percentile(latencies, 99),
  errors,
});
agent.destroy();
process.disconnect?.();

// NODES simulated agents, each posting a heartbeat every INTERVAL seconds, from one process: first
// one round as fast as the server takes it (the nodes register), then SECONDS paced, unchanged beats.
import { Agent, request } from "node:http";
import { percentile } from "./report";
import { beatOf } from "./seed";

const [url = "", nodesText = "5000", intervalText = "5", secondsText = "20"] = process.argv.slice(2);
const nodes = Number(nodesText);
const intervalMs = Number(intervalText) * 1000;
const target = new URL(url);
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

const bodies = Array.from({ length: nodes }, (_, n) => JSON.stringify(beatOf(n)));

function post(body: string): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        agent,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200
            ? resolve(performance.now() - start)
            : reject(new Error(`status ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Registration retries: a keep-alive socket the server closed as the request went out resets. */
async function register(body: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await post(body);
      return;
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

const registerStart = performance.now();
// The server seeded these nodes; a first round at full speed settles its snapshot and JIT.
for (let i = 0; i < nodes; i += 50) await Promise.all(bodies.slice(i, i + 50).map(register));
const registerMs = performance.now() - registerStart;
process.send?.({ registered: nodes, registerMs });
await new Promise<void>((resolve) => process.once("message", () => resolve()));

// Paced: node n beats at n/nodes of each interval, so the rate is even (nodes / interval per second).
const latencies: number[] = [];
let errors = 0;
let late = 0;
const start = performance.now();
const total = Math.round((Number(secondsText) * 1000 * nodes) / intervalMs);
const inflight: Promise<void>[] = [];
for (let k = 0; k < total; k++) {
  const due = start + (k * intervalMs) / nodes;
  const wait = due - performance.now();
  if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
  else if (wait < -100) late++;
  const p = post(bodies[k % nodes] ?? "").then(
    (ms) => void latencies.push(ms),
    () => void errors++,
  );
  inflight.push(p);
}
await Promise.all(inflight);
const seconds = (performance.now() - start) / 1000;
process.send?.({
  sent: total,
  seconds,
  rate: total / seconds,
  p50: percentile(latencies, 50),
  p99: percentile(latencies, 99),
  errors,
  late,
});
agent.destroy();
process.disconnect?.();

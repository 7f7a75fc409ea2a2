// COUNT open SSE streams to URL from one process. Tells its parent when all are open; on
// {cmd: "expect"} records when each stream next receives an event (a wall clock the parent shares)
// and answers with those times once every stream has one, or after a time-out.
import { Agent, request } from "node:http";
import { wallNow } from "./report";

const [url = "", countText = "10000"] = process.argv.slice(2);
const count = Number(countText);
const target = new URL(url);
const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
let waiting = false;
const got: number[] = [];
let done: (() => void) | null = null;
let open = 0;
let failed = 0;

function connect(): Promise<void> {
  return new Promise((resolve) => {
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, agent }, (res) => {
      res.setEncoding("utf8");
      let first = true;
      res.on("data", (chunk: string) => {
        if (first) {
          first = false;
          open++;
          resolve();
        }
        if (waiting && chunk.includes("\ndata:")) {
          got.push(wallNow());
          if (got.length === count) done?.();
        }
      });
    });
    req.on("error", () => {
      failed++;
      resolve();
    });
    req.end();
  });
}

// In batches: 10,000 connects at once would overflow the listen backlog.
for (let i = 0; i < count; i += 500)
  await Promise.all(Array.from({ length: Math.min(500, count - i) }, connect));
process.send?.({ open, failed });
process.on("message", (message: { cmd: string; timeoutMs?: number }) => {
  if (message.cmd !== "expect") return;
  got.length = 0;
  waiting = true;
  const timer = setTimeout(() => done?.(), message.timeoutMs ?? 10_000);
  done = () => {
    clearTimeout(timer);
    waiting = false;
    done = null;
    process.send?.({ times: got });
  };
  process.send?.({ ready: true });
});
process.once("SIGTERM", () => process.exit(0));

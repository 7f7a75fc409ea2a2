// The gateway bench's engine, in its own process: the least an OpenAI-compatible server does, so
// what is measured is the path to it. Non-streaming: a small chat completion at once. Streaming:
// CHUNKS chunks EVERY_MS apart, each stamped with the wall time it was written, so a client can
// tell how long a chunk took to reach it (directly, or through a proxy).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { wallNow } from "./report";

const REPLY = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 0,
  model: "bench",
  choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 8, completion_tokens: 1, total_tokens: 9 },
});

const server = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/health") {
    res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as {
      stream?: boolean;
      bench_chunks?: number;
      bench_every_ms?: number;
    };
    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(REPLY) });
      res.end(REPLY);
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const total = body.bench_chunks ?? 20;
    const every = body.bench_every_ms ?? 20;
    let sent = 0;
    const timer = setInterval(() => {
      if (sent === total) {
        clearInterval(timer);
        res.end("data: [DONE]\n\n");
        return;
      }
      sent++;
      res.write(`data: {"choices":[{"index":0,"delta":{"content":"t"}}],"sent":${wallNow()}}\n\n`);
    }, every);
    res.on("close", () => clearInterval(timer));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.once("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});

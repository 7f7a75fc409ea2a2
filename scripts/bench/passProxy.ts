// The floor for the gateway bench, in its own process: a bare keep-alive pass-through proxy with
// undici's Pool (what the gateway uses upstream) and node:http, nothing else: no routing, no auth,
// no queue, no counting. Whatever llmgw adds beyond this is llmgw's own cost.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Pool } from "undici";

const [upstream = ""] = process.argv.slice(2);
const pool = new Pool(upstream, { connections: 256, pipelining: 1, keepAliveTimeout: 60_000 });

const server = createServer((req, res) => {
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  pool
    .request({
      method: (req.method ?? "GET") as "POST",
      path: req.url ?? "/",
      headers: { "content-type": req.headers["content-type"] ?? "application/json" },
      body: req,
      signal: controller.signal,
    })
    .then(({ statusCode, headers, body }) => {
      res.writeHead(statusCode, headers as Record<string, string>);
      body.on("data", (chunk: Buffer) => res.write(chunk));
      body.on("end", () => res.end());
      body.on("error", () => res.destroy());
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.once("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => void pool.close().finally(() => process.exit(0)));
});

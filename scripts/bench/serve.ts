// A server for the HTTP benches, in its own process (forked with IPC by report.ts `child`):
//   app [models] [nodes] [webDist] [heartbeatSeconds] [seeded] [replicasPerSeeded]  the real app:
//                                   openDeps (in-memory store) + createApp + serve, scheduler off,
//                                   seeded with models, a fleet via heartbeats, and `seeded` nodes
//                                   written straight to the store
//   big [models] [nodes] [webDist]   `llmgw serve` itself, scheduler off, seeded through the store
//                                   (apps/api/test/kit/bigFleet.ts): the dashboard-at-scale bench
//   scheduled [heartbeatSeconds] [scaleDownSeconds]
//                                   `llmgw serve` itself (apps/api startServer): an embedded store in
//                                   a temp dataDir, liveness and the scheduler on, nothing seeded;
//                                   heartbeatSeconds may be a fraction (set past the file's check)
//   bare-json FILE                  a bare Hono route answering FILE's bytes
//   bare-sse                        a bare node:http SSE server
// It answers IPC commands: usage (CPU and memory), gc, publish (bare-sse), published (when the
// last event was handed to the open streams, as wall time: the SSE bench times delivery from
// there on both servers), stop.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { connect } from "@llmgw/client";
import { Hono } from "hono";
import { beatOf, seedModel } from "./seed";

const [mode, ...args] = process.argv.slice(2);
let cleanup: () => Promise<void> = async () => {};
let publish: (data: string) => number = () => 0;
let port = 0;
/** Wall time (report.ts `wallNow`) when the last event was handed to the open streams. */
let publishedAt = 0;
const wallNow = () => performance.timeOrigin + performance.now();

function listen(server: { once: (e: string, f: () => void) => unknown; address: () => unknown }) {
  return new Promise<number>((resolve) =>
    server.once("listening", () => resolve((server.address() as AddressInfo).port)),
  );
}

if (mode === "app") {
  const models = Number(args[0] ?? 500);
  const nodes = Number(args[1] ?? 50);
  const webDist = args[2] || null;
  const heartbeatSeconds = Number(args[3] || 600);
  const api = await import("@llmgw/api");
  const { markSilentNodesDown } = await import("@llmgw/api");
  const dataDir = await mkdtemp(join(tmpdir(), "llmgw-bench-"));
  const config = api.loadConfig({ dataDir, listen: "127.0.0.1:0" }, { LLMGW_SCHEDULER: "off" });
  config.heartbeatSeconds = heartbeatSeconds;
  const deps = await api.openDeps(config, { inMemory: true });
  const app = api.createApp(deps, new api.Control(deps), { webDist });
  // The moment a committed event leaves for the streams: what the bare server's publish is.
  const toStreams = deps.hub.publish.bind(deps.hub);
  deps.hub.publish = (events) => {
    publishedAt = wallNow();
    toStreams(events);
  };
  // In-process, as Hono's own tests call an app: no socket before the server listens.
  const { api: client, answer } = connect({ server: "", fetch: app.request });
  for (let i = 0; i < models; i++) await answer(client.models.$post({ json: seedModel(i) }));
  // A modest fleet: each node runs a few of the models.
  for (let n = 0; n < nodes; n++)
    await answer(
      client.agents.heartbeat.$post({
        json: {
          node: { name: `node-${n}`, memoryGB: 512, cpuCount: 128, engines: ["llamacpp"] },
          replicas: Array.from({ length: Math.min(10, models) }, (_, j) => ({
            id: `r-${n}-${j}`,
            model: `model-${(n * 10 + j) % models}`,
            state: "ready",
          })),
        },
      }),
    );
  // The heartbeat bench's nodes, written in one transaction as their first beats would write them:
  // through the API each first beat rebuilds the world snapshot, and 5,000 take minutes (see README).
  const seeded = Number(args[4] || 0);
  const perSeeded = Number(args[5] || 2);
  if (seeded > 0) {
    const { seedNodes } = await import("@llmgw/api/testing");
    await seedNodes(
      deps,
      Array.from({ length: seeded }, (_, n) => beatOf(n, perSeeded)),
    );
  }
  // What the dashboard follows in place of refetching the lists (llmgw serve starts the same).
  const { startHeadroomChanges } = await import("@llmgw/api");
  const stopHeadroomChanges = startHeadroomChanges({ hub: deps.hub, world: deps.world });
  const liveness = setInterval(() => void markSilentNodesDown(deps).catch(() => {}), 1000);
  // As `llmgw serve` listens: the request path answers /v1 from Node's request before Hono does.
  const { server, url } = await api.listen(
    { host: "127.0.0.1", port: 0 },
    app.fetch,
    api.nodeRequestPathOf(app),
  );
  port = Number(new URL(url).port);
  cleanup = async () => {
    clearInterval(liveness);
    stopHeadroomChanges();
    (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    server.close();
    await deps.store.close();
    await rm(dataDir, { recursive: true, force: true });
  };
} else if (mode === "big") {
  // `llmgw serve` itself (headroom.changed and all), scheduler off, with a big catalogue and fleet
  // written to its embedded store: the dashboard bench's server.
  const [models, nodes, webDist] = [Number(args[0] ?? 500), Number(args[1] ?? 2000), args[2] || null];
  const api = await import("@llmgw/api");
  const { seedBigFleet } = await import("@llmgw/api/testing");
  const dataDir = await mkdtemp(join(tmpdir(), "llmgw-bench-"));
  const config = api.loadConfig({ dataDir, listen: "127.0.0.1:0" }, { LLMGW_SCHEDULER: "off" });
  // The seeded nodes do not beat: a long interval keeps them ready.
  config.heartbeatSeconds = 600;
  const server = await api.startServer(config, { webDist, log: api.silentLogger() });
  await seedBigFleet(server.deps, { models, nodes });
  port = Number(new URL(server.url).port);
  cleanup = async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  };
} else if (mode === "scheduled") {
  const api = await import("@llmgw/api");
  const dataDir = await mkdtemp(join(tmpdir(), "llmgw-bench-"));
  const config = api.loadConfig({ dataDir, listen: "127.0.0.1:0" }, {});
  config.heartbeatSeconds = Number(args[0] || 1);
  // The autoscaling window (SPEC §9.3): short, so a bench's burst is over and back in seconds.
  if (args[1]) config.autoscale.scaleDownSeconds = Number(args[1]);
  const server = await api.startServer(config, { log: api.silentLogger() });
  port = Number(new URL(server.url).port);
  cleanup = async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  };
} else if (mode === "bare-json") {
  const bytes = readFileSync(args[0] ?? "");
  const app = new Hono().get("/api/v1/models", (c) =>
    c.body(bytes, 200, { "content-type": "application/json" }),
  );
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  port = await listen(server);
  cleanup = async () => void server.close();
} else if (mode === "bare-sse") {
  const streams = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(": bare events\n\n");
    streams.add(res);
    req.on("close", () => streams.delete(res));
  });
  server.listen(0, "127.0.0.1");
  port = await listen(server);
  let id = 0;
  publish = (data) => {
    publishedAt = wallNow();
    const frame = `id: ${++id}\nevent: model.changed\ndata: ${data}\n\n`;
    for (const res of streams) res.write(frame);
    return streams.size;
  };
  cleanup = async () => {
    server.closeAllConnections();
    server.close();
  };
} else {
  throw new Error(`serve.ts: unknown mode ${mode}`);
}

function usage() {
  const cpu = process.cpuUsage();
  const mem = process.memoryUsage();
  return {
    cpuMs: (cpu.user + cpu.system) / 1000,
    rss: mem.rss,
    heapUsed: mem.heapUsed,
    external: mem.external,
  };
}

process.on("message", (message: { cmd: string; data?: string }) => {
  if (message.cmd === "usage") process.send?.(usage());
  else if (message.cmd === "gc") {
    (globalThis as { gc?: () => void }).gc?.();
    process.send?.(usage());
  } else if (message.cmd === "publish") process.send?.({ streams: publish(message.data ?? "{}") });
  else if (message.cmd === "published") process.send?.({ at: publishedAt });
});
process.once("SIGTERM", () => void cleanup().finally(() => process.exit(0)));
process.send?.({ port });

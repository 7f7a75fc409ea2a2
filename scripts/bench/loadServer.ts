// The server for the load bench, in its own process (forked with IPC by report.ts `child`): the
// real `startServer` as `llmgw serve` runs it — scheduler on, liveness, mirror watch — on the
// embedded PGlite store in a fresh data directory, or on PostgreSQL in a fresh database when given
// a server URL. Seeded with MODELS models through its own API.
//   loadServer MODELS [POSTGRES_URL]
// Tells its parent its port; answers {cmd: "usage"} with CPU time and RSS (now and the peak); on
// SIGTERM closes, drops what it made and exits.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { Session } from "node:inspector";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { connect } from "@llmgw/client";
import { seedModel } from "./seed";

const [modelsText = "200", postgres = ""] = process.argv.slice(2);
const models = Number(modelsText);

// What the server logs as a failure (a 500's cause, a scheduler run that threw) is still printed,
// and counted: the load bench reports it beside the answers the clients saw.
const logged: string[] = [];
const printError = console.error.bind(console);
console.error = (...args: unknown[]) => {
  logged.push(args.map((a) => (a instanceof Error ? (a.stack ?? a.message) : String(a))).join(" "));
  printError(...args);
};

const api = await import("@llmgw/api");
const { openPostgres } = await import("@llmgw/store");

const dataDir = await mkdtemp(join(tmpdir(), "llmgw-bench-load-"));
let database: { url: string; drop(): Promise<void> } | null = null;
if (postgres) {
  // A database of its own, as apps/api/test/multi-kit.ts makes one: never anyone else's data.
  const name = `llmgw_bench_${randomBytes(5).toString("hex")}`;
  const admin = await openPostgres(postgres);
  await admin.exec(`create database ${name}`).finally(() => admin.close());
  const url = new URL(postgres);
  url.pathname = `/${name}`;
  database = {
    url: url.toString(),
    async drop() {
      const again = await openPostgres(postgres);
      await again.exec(`drop database if exists ${name} with (force)`).finally(() => again.close());
    },
  };
}

// The environment `llmgw serve` would see, minus the developer's own LLMGW_* and DATABASE_URL.
const env: NodeJS.ProcessEnv = { ...(database ? { DATABASE_URL: database.url } : {}) };
const config = api.loadConfig({ dataDir, listen: "127.0.0.1:0" }, env);
const server = await api.startServer(config, { webDist: null, log: api.silentLogger() });

const { api: client, answer } = connect({ server: server.url });
for (let i = 0; i < models; i++) await answer(client.models.$post({ json: seedModel(i) }));

// How long the event loop was held: a stall that is computing shows here, one that is waiting does not.
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 200);

function usage() {
  const cpu = process.cpuUsage();
  const rss = process.memoryUsage().rss;
  peakRss = Math.max(peakRss, rss);
  const scheduler = server.control.runtime.stats;
  const loop = { p99Ms: loopDelay.percentile(99) / 1e6, maxMs: loopDelay.max / 1e6 };
  loopDelay.reset();
  return {
    cpuMs: (cpu.user + cpu.system) / 1000,
    rss,
    peakRss,
    logged: logged.slice(0, 20),
    loggedCount: logged.length,
    scheduler: { runs: scheduler.runs, errors: scheduler.errors, seconds: scheduler.seconds },
    snapshotLoads: server.deps.world.loads,
    loop,
  };
}

// A CPU profile of one stretch of the run ({cmd: "profile", stop: false}, then stop: true with a
// path): where the time of one phase goes, without the seeding around it.
const inspector = new Session();
inspector.connect();
const post = (method: string) =>
  new Promise<unknown>((resolve, reject) =>
    inspector.post(method, (err, result) => (err ? reject(err) : resolve(result))),
  );

process.on("message", (message: { cmd: string; stop?: boolean; path?: string }) => {
  if (message.cmd === "usage") {
    process.send?.(usage());
  } else if (message.cmd === "profile" && !message.stop) {
    void post("Profiler.enable")
      .then(() => post("Profiler.start"))
      .then(() => process.send?.({ profiling: true }));
  } else if (message.cmd === "profile" && message.path) {
    const path = message.path;
    void post("Profiler.stop")
      .then((result) => writeFile(path, JSON.stringify((result as { profile: unknown }).profile)))
      .then(() => process.send?.({ profiled: path }));
  }
});
process.once("SIGTERM", () => {
  clearInterval(sampler);
  void server
    .close()
    .then(() => database?.drop())
    .finally(() => rm(dataDir, { recursive: true, force: true }).finally(() => process.exit(0)));
});
process.send?.({ port: Number(new URL(server.url).port), store: server.deps.store.kind });

// Reading usage (SPEC §12.2) over HTTP, in its own process (forked by usage.ts): `llmgw serve`
// itself (startServer) on the store named by argv[2] ("pglite": a temp data dir; "postgres": a
// database of its own on TEST_DATABASE_URL's server), its usage_hours seeded in SQL with 90 days
// of 2,000 client tokens, then `GET /api/v1/usage?by=token&step=day` over those 90 days, one after
// another, as the dashboard asks (gzip accepted): each from the request to its last byte, the
// bytes on the wire, and this process's CPU time for it; the one-minute load average around them. Two shapes of the same 2,000 tokens (argv[3]):
//   every-day   every token on every one of the 90 days, 2 hours a day: 180,000 token-days, the
//               largest answer those tokens can give (360,000 stored hours)
//   long-tail   each token on one day in ten, 8 hours on those days: 18,000 token-days
//               (144,000 stored hours)
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, silentLogger, startServer } from "@llmgw/api";
import { openPostgres } from "@llmgw/store";
import { median } from "./report";

const [kind = "pglite", shape = "every-day"] = process.argv.slice(2);
const RUNS = Number(process.env.BENCH_USAGE_READ_RUNS ?? 7);
const DAY = 86_400_000;
const to = Math.floor(Date.now() / DAY) * DAY;
const from = to - 90 * DAY;

const dataDir = await mkdtemp(join(tmpdir(), "llmgw-bench-usage-read-"));
let drop = async () => {};
const env: Record<string, string> = { LLMGW_SCHEDULER: "off" };
if (kind === "postgres") {
  const base = process.env.TEST_DATABASE_URL ?? "";
  const name = `llmgw_bench_${randomBytes(4).toString("hex")}`;
  const admin = await openPostgres(base);
  await admin.query(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  env.DATABASE_URL = url.toString();
  drop = async () => {
    await admin.query(`drop database ${name} with (force)`);
    await admin.close();
  };
}
const server = await startServer(loadConfig({ dataDir, listen: "127.0.0.1:0" }, env), {
  log: silentLogger(),
});
// Token t (of 2,000) on day d: every day (2 hours), or on one day in ten (8 hours); its model and
// owner follow from t. One statement: the rows are made in the database.
const hours = shape === "every-day" ? "array[t % 12, 12 + t % 12]" : "array[0,2,4,6,8,10,12,14]";
const days = shape === "every-day" ? "true" : "(t + d) % 10 = 0";
const seeding = performance.now();
await server.deps.store.db.query(
  `insert into usage_hours (hour, model, token, owner, requests, refused, failed, prompt_tokens, cached_tokens, completion_tokens)
   select $1::timestamptz + d * interval '1 day' + h * interval '1 hour', 'model-' || (t % 50),
          'token-' || lpad(t::text, 4, '0'), 'team-' || (t % 20),
          1 + (t + d + h) % 50, (t + h) % 3, (d + h) % 2, 300 + (t * 7 + d * 13 + h) % 5000,
          (t + d) % 200, 50 + (t * 3 + d + h) % 900
   from generate_series(0, 1999) t, generate_series(0, 89) d, unnest(${hours}) h
   where ${days}`,
  [new Date(from).toISOString()],
);
// And their days, as the recorder's write adds them (packages/store repos/usage.ts).
await server.deps.store.db.query(
  `insert into usage_days (day, model, token, owner, requests, refused, failed, prompt_tokens, cached_tokens, completion_tokens)
   select date_trunc('day', hour, 'UTC'), model, token, owner, sum(requests), sum(refused), sum(failed),
          sum(prompt_tokens), sum(cached_tokens), sum(completion_tokens)
   from usage_hours group by 1, 2, 3, 4`,
);
const seedMs = performance.now() - seeding;
const [{ n: storedRows } = { n: 0 }] = await server.deps.store.db.query<{ n: number }>(
  "select count(*)::int as n from usage_hours",
);

const loadBefore = loadavg()[0] ?? 0;
const path = `/api/v1/usage?by=token&step=day&from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;
const port = new URL(server.url).port;
/** One GET: ms to its last byte, bytes on the wire. */
const get = (gzip: boolean) =>
  new Promise<{ ms: number; bytes: number; status: number }>((resolve, reject) => {
    const began = performance.now();
    const req = request(
      { host: "127.0.0.1", port, path, headers: gzip ? { "accept-encoding": "gzip" } : {} },
      (res) => {
        let bytes = 0;
        res.on("data", (chunk: Buffer) => {
          bytes += chunk.byteLength;
        });
        res.on("end", () => resolve({ ms: performance.now() - began, bytes, status: res.statusCode ?? 0 }));
      },
    );
    req.on("error", reject);
    req.end();
  });

const plain = await get(false); // also the first (cold) read
// Each gzipped read's time and this process's CPU for it (the server's, and the client's reading
// of the compressed bytes); PostgreSQL's own CPU is in the time, not in this figure.
const runs: { ms: number; bytes: number; status: number; cpuMs: number }[] = [];
for (let i = 0; i < RUNS; i++) {
  const cpu = process.cpuUsage();
  const run = await get(true);
  const spent = process.cpuUsage(cpu);
  runs.push({ ...run, cpuMs: (spent.user + spent.system) / 1000 });
}
const bad = [plain, ...runs].find((r) => r.status !== 200);
await server.close();
await drop();
await rm(dataDir, { recursive: true, force: true });
if (bad) throw new Error(`GET /usage answered ${bad.status}`);

const times = runs.map((r) => r.ms);
process.send?.({
  storedRows,
  seedMs,
  plainBytes: plain.bytes,
  plainMs: plain.ms,
  gzipBytes: median(runs.map((r) => r.bytes)),
  min: Math.min(...times),
  median: median(times),
  max: Math.max(...times),
  cpuMs: median(runs.map((r) => r.cpuMs)),
  loadBefore,
  loadAfter: loadavg()[0] ?? 0,
});
process.exit(0);

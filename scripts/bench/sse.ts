// One event to 10,000 open SSE streams: the time until every client has it, and the server's
// memory per open stream, for /api/v1/events and for a bare node:http SSE server. Each server is
// its own process (with --expose-gc, so memory is read after a collection) and the 10,000
// clients a third: their parsing shares the machine, which the bare server's figure shows. The
// aim is judged on the median of the events, with the fastest and slowest beside it.
//
// Both are timed the same way: from the moment the server hands the event to its open streams
// (llmgw: a committed PATCH's event reaching the hub's publish; bare: its publish command) to its
// arrival at the clients. What llmgw does before that (the PATCH's request and transaction) is not
// in either figure: the bare server has nothing to compare it with.
import { connect } from "@llmgw/client";
import { child, median, percentile, type Row } from "./report";

export const names = ["SSE fan-out"];
const STREAMS = Number(process.env.BENCH_STREAMS ?? 10_000);
const EVENTS = 5;

type Usage = { cpuMs: number; rss: number; heapUsed: number; external: number };
type Result = {
  label: string;
  openMs: number;
  rssPerStream: number;
  heapPerStream: number;
  p50: number;
  all: number[];
  missed: number;
};

async function fanOut(
  label: string,
  serverArgs: string[],
  publish: (server: ReturnType<typeof child>, port: number, i: number) => Promise<void>,
): Promise<Result> {
  const server = child("./serve.ts", serverArgs, ["--expose-gc"]);
  const { port } = await server.ask<{ port: number }>(null);
  const path = serverArgs[0] === "app" ? "/api/v1/events" : "/";
  const before = await server.ask<Usage>({ cmd: "gc" });
  const start = performance.now();
  const clients = child("./sseClients.ts", [`http://127.0.0.1:${port}${path}`, String(STREAMS)]);
  const opened = await clients.ask<{ open: number; failed: number }>(null);
  const openMs = performance.now() - start;
  const after = await server.ask<Usage>({ cmd: "gc" });
  const alls: number[] = [];
  const p50s: number[] = [];
  let missed = 0;
  for (let i = 0; i < EVENTS; i++) {
    await clients.ask({ cmd: "expect", timeoutMs: 10_000 });
    const arrived = clients.ask<{ times: number[] }>(null);
    await publish(server, port, i);
    const { times } = await arrived;
    const { at: t0 } = await server.ask<{ at: number }>({ cmd: "published" });
    missed += opened.open - times.length;
    alls.push(Math.max(...times) - t0);
    p50s.push(percentile(times, 50) - t0);
  }
  await clients.stop();
  await server.stop();
  if (opened.failed) console.log(`${label}: ${opened.failed} streams failed to open`);
  return {
    label,
    openMs,
    rssPerStream: (after.rss - before.rss) / opened.open,
    heapPerStream: (after.heapUsed + after.external - before.heapUsed - before.external) / opened.open,
    p50: median(p50s),
    all: alls,
    missed,
  };
}

export async function run(): Promise<Row[]> {
  let etag = "";
  const app = await fanOut(`llmgw /api/v1/events`, ["app", "500", "50"], async (_server, port, i) => {
    // One catalogue change: a description edit (small, like most events).
    const { api, sent } = connect({ server: `http://127.0.0.1:${port}` });
    const param = { name: "model-7" };
    if (!etag) etag = (await sent(api.models[":name"].$get({ param }))).headers.get("etag") ?? "";
    const edited = api.models[":name"].$patch(
      { param, json: { description: `edit ${i}` } },
      { headers: { "If-Match": etag } },
    );
    etag = (await sent(edited)).headers.get("etag") ?? "";
  });
  const payload = JSON.stringify({
    name: "model-7",
    description: "edit",
    version: 2,
    padding: "x".repeat(300),
  });
  const bare = await fanOut("bare node:http SSE", ["bare-sse"], async (server) => {
    await server.ask({ cmd: "publish", data: payload });
  });
  const kb = (b: number) => `${(b / 1000).toFixed(1)} kB`;
  const spread = (r: Result) =>
    [Math.min(...r.all), median(r.all), Math.max(...r.all)].map((t) => t.toFixed(0)).join(" / ");
  const row = (r: Result) => ({
    server: r.label,
    "opened in ms": r.openMs.toFixed(0),
    "all delivered ms (each event)": r.all.map((t) => t.toFixed(0)).join(" "),
    "all delivered ms (min / median / max)": spread(r),
    "half delivered ms (median)": r.p50.toFixed(0),
    missed: r.missed,
    "RSS per stream": kb(r.rssPerStream),
    "heap+external per stream": kb(r.heapPerStream),
  });
  console.table([row(app), row(bare)]);
  return [
    {
      measure: `one event to ${STREAMS} SSE streams, from the server handing it to its streams until all have it (min / median / max of ${EVENTS} events)`,
      value: `${spread(app)} ms${app.missed ? `, ${app.missed} missed` : ""}`,
      peer: `bare node:http: ${spread(bare)} ms`,
      ratio: `${(median(app.all) / median(bare.all)).toFixed(2)}× the time (medians)`,
      aim: "≤ 200 ms median",
      met: median(app.all) <= 200 && app.missed === 0,
    },
    {
      measure: "server memory per open SSE stream (RSS growth)",
      value: `${kb(app.rssPerStream)} RSS, ${kb(app.heapPerStream)} heap+external`,
      peer: `bare node:http: ${kb(bare.rssPerStream)} RSS, ${kb(bare.heapPerStream)} heap+external`,
      ratio: `${(app.rssPerStream / bare.rssPerStream).toFixed(2)}×`,
      aim: "≤ 10 kB",
      met: app.rssPerStream <= 10_000,
    },
  ];
}

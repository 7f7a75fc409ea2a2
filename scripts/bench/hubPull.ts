// A pull from the Hugging Face Hub (SPEC §10) at the user's edge: a 2 GB GGUF from a local stand-in
// Hub, `POST /api/v1/mirror/pulls` to the real `llmgw serve` until its `mirror.pull` event says
// complete, beside `curl -L -o` of the same URL in the same run (the floor: one HTTP client writing
// to the same disk). Each run does both, curl first, and deletes what they wrote; median of 3 with
// min and max. The server's CPU per 100 MB pulled (process.cpuUsage across the pull: planning,
// the download with its SHA-256 computed as it writes, the progress writes and events, the mirror's
// watch) is shown beside it. The Hub and the server are child processes, each with its own core.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { connect } from "@llmgw/client";
import { liveEvents } from "@llmgw/client/events";
import { child, median, type Row } from "./report";

export const names = ["hub pull"];
const BYTES = Number(process.env.BENCH_HUB_PULL_BYTES ?? 2e9);
const RUNS = Number(process.env.BENCH_HUB_PULL_RUNS ?? 3);
const REPO = "bench/Big-GGUF";
const execute = promisify(execFile);

const mbps = (seconds: number) => BYTES / 1e6 / seconds;
const spread = (xs: number[], unit: string, digits = 0) =>
  `min ${Math.min(...xs).toFixed(digits)} / median ${median(xs).toFixed(digits)} / max ${Math.max(...xs).toFixed(digits)} ${unit}`;

/** Seconds from the POST to the pull's `complete` event, read from the server's stream. */
async function pullOnce(base: string, version: string): Promise<number> {
  const { api, answer } = connect({ server: base });
  const stream = new AbortController();
  let opened: () => void = () => {};
  const subscribed = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const events = liveEvents(`${base}/api/v1/events`, {
    signal: stream.signal,
    reconnectMs: null,
    onComment: () => opened(),
  });
  const ended = (async () => {
    for await (const event of events) {
      if (event.type !== "mirror.pull" || event.data.version !== version) continue;
      if (event.data.state === "complete") return performance.now();
      if (event.data.state === "failed" || event.data.state === "cancelled") {
        throw new Error(`the bench's pull ${event.data.state}: ${event.data.error}`);
      }
    }
    throw new Error("the event stream ended before the pull did");
  })();
  await subscribed;
  try {
    const start = performance.now();
    await answer(api.mirror.pulls.$post({ json: { repo: REPO, version } }));
    return ((await ended) - start) / 1000;
  } finally {
    stream.abort();
  }
}

export async function run(): Promise<Row[]> {
  const hub = child("./serveHubPull.ts", ["hub", String(BYTES)]);
  const { url: hubUrl, commit } = await hub.ask<{ url: string; commit: string }>(null);
  const server = child("./serveHubPull.ts", ["llmgw", hubUrl]);
  const { url: base, mirror } = await server.ask<{ url: string; mirror: string }>(null);
  const scratch = await mkdtemp(join(tmpdir(), "llmgw-bench-curl-"));
  const url = `${hubUrl}/${REPO}/resolve/${commit}/Big-Q4_K_M.gguf`;
  const curl: number[] = [];
  const pull: number[] = [];
  const cpuPer100MB: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const out = join(scratch, "curl.bin");
      const started = performance.now();
      await execute("curl", ["-sS", "--fail", "-L", "-o", out, url]);
      curl.push(mbps((performance.now() - started) / 1000));
      await rm(out, { force: true });

      const before = await server.ask<{ cpuMs: number }>({ cmd: "usage" });
      const seconds = await pullOnce(base, `run-${i}`);
      const after = await server.ask<{ cpuMs: number }>({ cmd: "usage" });
      pull.push(mbps(seconds));
      cpuPer100MB.push(((after.cpuMs - before.cpuMs) / BYTES) * 1e8);
      console.log(
        `hub pull run ${i + 1}: curl ${curl.at(-1)?.toFixed(0)} MB/s, llmgw ${pull.at(-1)?.toFixed(0)} MB/s, server CPU ${cpuPer100MB.at(-1)?.toFixed(0)} ms per 100 MB`,
      );
      await rm(join(mirror, "big-gguf", `run-${i}`), { recursive: true, force: true });
    }
  } finally {
    await server.stop();
    await hub.stop();
    await rm(scratch, { recursive: true, force: true });
  }
  const ratio = median(pull) / median(curl);
  const size = `${(BYTES / 1e9).toFixed(1)} GB`;
  return [
    {
      measure: `hub pull: a ${size} GGUF from a local stand-in Hub (MB/s)`,
      value: spread(pull, "MB/s"),
      peer: `curl -L -o: ${spread(curl, "MB/s")}`,
      ratio: `${ratio.toFixed(2)}×`,
      aim: "≥ 0.8× curl",
      met: ratio >= 0.8,
    },
    {
      measure: "hub pull: llmgw serve's CPU per 100 MB pulled",
      value: spread(cpuPer100MB, "ms"),
      aim: "shown beside the throughput",
      met: null,
    },
  ];
}

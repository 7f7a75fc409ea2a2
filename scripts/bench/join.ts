// Joining a node in one line (SPEC §5, issue 32), at the user's edge: a real `llmgw serve` (the
// `llmgw` command, as the README starts it) on loopback, and second machines that are folders with
// nothing but Node and a stand-in llama-server on their PATH.
//   agent.mjs      its size as served (GET /install/agent.mjs), raw and gzip, beside what the clone
//                  route installed on every node (this workspace's node_modules, measured now);
//   join           from `curl -fsSL …/install.sh | sh -s -- …` to the node's first heartbeat (the
//                  node.changed event), median of 3 new nodes with min / max, beside the same with
//                  agent.mjs already in place (the script downloads nothing);
//   agent memory   the agent's resident memory (VmRSS) idle with one replica running, beside a
//                  bare Node process idle (the floor).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { machineIn, shell } from "@llmgw/cli/join-kit";
import { connect } from "@llmgw/client";
import { liveEvents } from "@llmgw/client/events";
import { median, type Row } from "./report";

export const names = ["agent.mjs size", "join: curl | sh to first heartbeat", "agent memory idle"];
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const RUNS = 3;
const MB = 1e6;

/** `llmgw serve` on a port of its own and a new data dir; resolves with its URL once ready. */
async function serve(dataDir: string): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(
    process.execPath,
    ["scripts/llmgw.mjs", "serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--log-format", "json"],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const found = /"url":"(http:\/\/[^"]+)"/.exec(output)?.[1];
      if (found) resolve(found);
    });
    proc.once("exit", (code) => reject(new Error(`llmgw serve exited (${code}):\n${output}`)));
  });
  return { url, proc };
}

/** The bytes a client receives for `path` when it asks for `encoding` (counted before decoding). */
function bytesOnTheWire(url: string, encoding: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { "accept-encoding": encoding } }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on("end", () => resolve(bytes));
      res.on("error", reject);
    }).on("error", reject);
  });
}

/** Resident memory of a process, from /proc, in bytes. */
function rssOf(pid: number): number {
  const kB = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kB ?? Number.NaN) * 1024;
}

const spread = (xs: number[], unit: string, digits = 0) =>
  `${median(xs).toFixed(digits)} ${unit} median (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

export async function run(only: RegExp | null): Promise<Row[]> {
  const wanted = (name: string) => only === null || only.test(name);
  const root = await mkdtemp(join(tmpdir(), "llmgw-bench-join-"));
  const { url, proc: server } = await serve(join(root, "server"));
  const agents: ChildProcess[] = [];
  const events = new AbortController();
  const rows: Row[] = [];
  try {
    if (wanted(names[0] ?? "")) {
      const raw = await bytesOnTheWire(`${url}/install/agent.mjs`, "identity");
      const gzip = await bytesOnTheWire(`${url}/install/agent.mjs`, "gzip");
      const cloned = Number(
        execFileSync("du", ["-sb", join(ROOT, "node_modules")], { encoding: "utf8" }).split("\t")[0],
      );
      console.log(`agent.mjs: ${raw} bytes, ${gzip} gzip; the workspace's node_modules: ${cloned} bytes`);
      rows.push({
        measure: "`agent.mjs` as served by GET /install/agent.mjs (the one-file agent a node downloads)",
        value: `${(raw / MB).toFixed(2)} MB raw, ${(gzip / MB).toFixed(2)} MB gzip`,
        peer: `the clone route's node_modules: ${(cloned / MB).toFixed(0)} MB`,
        ratio: `${((raw / cloned) * 100).toFixed(2)}%`,
        aim: "≤ 1 MB",
        met: raw <= 1_000_000,
      });
    }

    if (!wanted(names[1] ?? "") && !wanted(names[2] ?? "")) return rows;
    // Every node.changed as it reaches this process, stamped: a node's first heartbeat is its first.
    const seen = new Map<string, number>();
    const stream = liveEvents(`${url}/api/v1/events`, { signal: events.signal, reconnectMs: null });
    void (async () => {
      for await (const event of stream) {
        const name = (event.data as { name?: unknown } | null)?.name;
        if (event.type === "node.changed" && typeof name === "string" && !seen.has(name))
          seen.set(name, performance.now());
      }
    })().catch(() => undefined);
    const firstBeat = async (name: string) => {
      const deadline = performance.now() + 30_000;
      while (!seen.has(name)) {
        if (performance.now() > deadline) throw new Error(`join bench: no heartbeat from ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return seen.get(name) ?? 0;
    };

    /** The one line into `prefix` as node `name`, then the command it prints: ms to the first beat. */
    const join1 = async (home: string, path: string, prefix: string, name: string, extra = "") => {
      const started = performance.now();
      const ran = await shell(
        `curl -fsSL ${url}/install.sh | sh -s -- --name ${name} --prefix ${prefix} --no-service`,
        {
          PATH: path,
          HOME: home,
        },
      );
      const command = ran.stdout
        .split("\n")
        .find((line) => line.startsWith("  ") && line.includes("agent.mjs"));
      if (ran.code !== 0 || !command)
        throw new Error(`join bench: install.sh failed:\n${ran.stdout}${ran.stderr}`);
      const installed = performance.now();
      const agent = spawn("/bin/sh", ["-c", `exec ${command.trim()}${extra}`], {
        cwd: home,
        env: { PATH: path, HOME: home },
        stdio: "ignore",
      });
      agents.push(agent);
      const beat = await firstBeat(name);
      return { total: beat - started, script: installed - started, agent };
    };

    const fresh: number[] = [];
    const scripts: number[] = [];
    const again: number[] = [];
    let kept: ChildProcess | null = null;
    for (let i = 0; i < RUNS; i++) {
      const machine = await machineIn(join(root, `machine-${i}`));
      const prefix = join(machine.home, "llmgw");
      const first = await join1(
        machine.home,
        machine.path,
        prefix,
        `bench-join-${i}`,
        i === RUNS - 1 ? " --label bench=memory" : "",
      );
      fresh.push(first.total);
      scripts.push(first.script);
      if (i === RUNS - 1) kept = first.agent;
      // The same machine, agent.mjs in place: the script downloads nothing, and the agent starts.
      const second = await join1(machine.home, machine.path, prefix, `bench-join-${i}-again`);
      again.push(second.total);
      second.agent.kill("SIGTERM");
      console.log(
        `join run ${i + 1}/${RUNS}: ${first.total.toFixed(0)} ms (install.sh ${first.script.toFixed(0)} ms), already installed ${second.total.toFixed(0)} ms`,
      );
    }
    if (wanted(names[1] ?? ""))
      rows.push({
        measure:
          "join: `curl -fsSL …/install.sh | sh -s -- --no-service …`, then the command it prints, to the node's first heartbeat (loopback, 3 new nodes)",
        value: `${spread(fresh, "ms")}; install.sh alone ${spread(scripts, "ms")}`,
        peer: `agent.mjs already in place: ${spread(again, "ms")}`,
        ratio: `${(median(fresh) / median(again)).toFixed(2)}×`,
        aim: "≤ 3 s",
        met: median(fresh) <= 3000,
      });

    if (wanted(names[2] ?? "") && kept?.pid) {
      const { api, answer } = connect({ server: url });
      await answer(
        api.models.$post({
          json: {
            name: "bench-memory",
            // Not a mirror URL: the engine gets it as it is, nothing to download.
            source: "http://127.0.0.1:9/bench.gguf",
            contextLength: 256,
            scaling: { min: 1, max: 1 },
            profiles: [
              {
                name: "cpu",
                engine: "llamacpp",
                minMemoryGB: 1,
                cpuCores: 1,
                nodeSelector: { bench: "memory" },
              },
            ],
          },
        }),
      );
      const deadline = performance.now() + 60_000;
      for (;;) {
        const replicas = await answer(api.fleet.replicas.$get());
        if (replicas.some((r) => r.model === "bench-memory" && r.state === "ready")) break;
        if (performance.now() > deadline)
          throw new Error("join bench: the memory bench's replica never turned ready");
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const floor = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
      agents.push(floor);
      // Idle: a few heartbeats and health checks after the replica turned ready.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      const rss: number[] = [];
      const bare: number[] = [];
      for (let i = 0; i < 5; i++) {
        rss.push(rssOf(kept.pid) / MB);
        if (floor.pid) bare.push(rssOf(floor.pid) / MB);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      console.log(`agent RSS idle with one replica: ${rss.map((x) => x.toFixed(1)).join(", ")} MB`);
      rows.push({
        measure: "the agent's resident memory (VmRSS), idle with one replica running (5 samples, 1 s apart)",
        value: spread(rss, "MB", 1),
        peer: `a bare \`node\` idle: ${spread(bare, "MB", 1)}`,
        ratio: `${(median(rss) / median(bare)).toFixed(2)}×`,
        aim: "≤ 60 MB",
        met: Math.max(...rss) <= 60,
      });
    }
    return rows;
  } finally {
    events.abort();
    for (const agent of agents) {
      if (agent.exitCode === null && agent.signalCode === null) {
        const exited = once(agent, "exit");
        agent.kill("SIGTERM");
        await exited;
      }
    }
    const stopped = once(server, "exit");
    server.kill("SIGTERM");
    await stopped;
    await rm(root, { recursive: true, force: true });
  }
}

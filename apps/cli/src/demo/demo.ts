import { mkdir, mkdtemp, open, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  AGENT_VERSION,
  type AgentLog,
  type NodeFacts,
  type ReportedReplica,
  type RunningAgent,
  runAgent,
  Supervisor,
  simulatedMachine,
} from "@llmgw/agent";
import { guardProcess, type Logger, loadConfig, startServer } from "@llmgw/api";
import type { ModelInput } from "@llmgw/domain";
import { LOG_USAGE, loggerFrom, logOptions } from "@llmgw/log";
import { fancynet3b, llama31_8b, writeGgufFile, writeNotGguf, writeSafetensorsFile } from "@llmgw/simulation";
import { agentSource, ensureDashboard, stopOnSignals } from "../serve";
import { simulatedEngines } from "./simulated";

const GB = 1024 ** 3;
const HEARTBEAT_SECONDS = 2;

/** A simulated node: what its machine says, and what it runs that no one placed. */
type SimNode = { facts: Omit<NodeFacts, "freeMemoryGB">; selfReported?: ReportedReplica[] };

/** A dozen nodes of mixed size: small and large CPU boxes, GPU boxes, and one older agent. */
function fleet(): SimNode[] {
  const nodes: SimNode[] = [];
  const add = (name: string, memoryGB: number, cpuCount: number, extra: Partial<SimNode["facts"]> = {}) =>
    nodes.push({
      facts: {
        name,
        memoryGB,
        cpuCount,
        engines: ["llamacpp"],
        labels: {},
        agentVersion: AGENT_VERSION,
        ...extra,
      },
    });
  for (let i = 1; i <= 4; i++) add(`cpu-small-${i}`, 32, 8);
  for (let i = 1; i <= 4; i++) add(`cpu-large-${i}`, 128, 32, { labels: { size: "large" } });
  for (let i = 1; i <= 3; i++) {
    add(`gpu-${i}`, 256, 64, {
      gpuTotal: 4,
      gpuMemoryGB: 80,
      engines: ["vllm", "llamacpp"],
      labels: { gpu: "a100" },
    });
  }
  // An agent older than the engine probe: it reports no engines, which means "unknown", not "none".
  add("old-agent-1", 64, 16, { engines: [], agentVersion: "0.9.0" });
  const old = nodes.at(-1);
  // Someone's experiment the catalogue does not know: unmanaged, it holds what it reports.
  if (old) old.selfReported = [{ id: "adhoc-1", model: "alice-experiment", state: "ready", memoryGB: 16 }];
  return nodes;
}

const profile = (engine: "llamacpp" | "vllm", minMemoryGB: number, cpuCores: number, gpus = 0) => ({
  name: engine === "llamacpp" ? "cpu" : "gpu",
  engine,
  minMemoryGB,
  cpuCores,
  gpus,
});

function catalogue(base: string): ModelInput[] {
  const src = (path: string) => `${base}/mirror/${path}`;
  return [
    {
      name: "llama-3.1-8b",
      source: src("llama-3.1-8b-instruct/Q4_K_M/llama-3.1-8b-instruct-Q4_K_M.gguf"),
      contextLength: 8192,
      class: "critical",
      owner: "platform",
      aliases: ["llama3"],
      // Always at least 2, up to 4 by its traffic (SPEC §9): `ctl bench llama3 --concurrency 16` shows it.
      scaling: { min: 2, max: 4 },
      profiles: [profile("llamacpp", 8, 4)],
    },
    {
      name: "qwen2.5-7b",
      source: src("qwen2.5-7b-instruct/Q5_K_M/qwen2.5-7b-instruct-Q5_K_M.gguf"),
      contextLength: 16384,
      owner: "research",
      scaling: { min: 3, max: 3 },
      profiles: [profile("llamacpp", 7, 4)],
    },
    {
      name: "mixtral-8x7b",
      source: src("mixtral-8x7b/fp16/"),
      contextLength: 32768,
      owner: "research",
      scaling: { min: 1, max: 1 },
      profiles: [profile("vllm", 100, 16, 2)],
    },
    {
      name: "batch-summarizer",
      source: src("qwen2.5-7b-instruct/Q5_K_M/qwen2.5-7b-instruct-Q5_K_M.gguf"),
      contextLength: 4096,
      class: "batch",
      owner: "interns",
      scaling: { min: 4, max: 4 },
      profiles: [profile("llamacpp", 12, 4)],
    },
    {
      name: "nightly-eval",
      source: src("llama-3.1-8b-instruct/Q4_K_M/llama-3.1-8b-instruct-Q4_K_M.gguf"),
      contextLength: 8192,
      class: "batch",
      owner: "research",
      scaling: { min: 0, max: 2, idleTimeoutSeconds: 600 },
      profiles: [profile("llamacpp", 10, 4)],
    },
  ];
}

/** A generated mirror: GGUF files with real headers over sparse weights, safetensors, and refusals. */
async function writeMirror(dir: string): Promise<() => Promise<void>> {
  // Each file the demo writes is marked as a generated stand-in (`<file>.generated`): its weights
  // are holes that read as zeros, and hashing 200 GB of them for digests no agent of the demo
  // checks would keep a core busy for minutes. The mirror lists them without a digest.
  const written: string[] = [];
  const standIn = (path: string) => {
    const file = join(dir, path);
    written.push(file);
    return file;
  };
  await writeGgufFile(
    standIn("llama-3.1-8b-instruct/Q4_K_M/llama-3.1-8b-instruct-Q4_K_M.gguf"),
    llama31_8b(),
  );
  // A second version of the same weights, so the demo's llama3 has something to roll out to
  // (SPEC §11: `ctl model rollout llama3 --version Q8_0`, or the Mirror page's "roll out this version").
  await writeGgufFile(
    standIn("llama-3.1-8b-instruct/Q8_0/llama-3.1-8b-instruct-Q8_0.gguf"),
    llama31_8b({ fileType: 7, weightsBytes: Math.round(8.54 * GB) }),
  );
  await writeGgufFile(standIn("qwen2.5-7b-instruct/Q5_K_M/qwen2.5-7b-instruct-Q5_K_M.gguf"), {
    architecture: "qwen2",
    blockCount: 28,
    headCount: 28,
    headCountKV: 4,
    embeddingLength: 3584,
    contextLength: 32768,
    fileType: 17,
    weightsBytes: Math.round(5.07 * GB),
  });
  await writeGgufFile(standIn("llama-3.1-70b-instruct/Q4_K_M/llama-3.1-70b-instruct-Q4_K_M.gguf"), {
    architecture: "llama",
    blockCount: 80,
    headCount: 64,
    headCountKV: 8,
    embeddingLength: 8192,
    contextLength: 131072,
    fileType: 15,
    weightsBytes: Math.round(39.6 * GB),
  });
  await writeGgufFile(standIn("deepseek-v3/Q2_K/deepseek-v3-Q2_K-00002-of-00005.gguf"), {
    architecture: "deepseek2",
    blockCount: 61,
    headCount: 128,
    embeddingLength: 7168,
    contextLength: 163840,
    split: { no: 1, count: 5 },
    weightsBytes: Math.round(45 * GB),
  });
  await writeGgufFile(standIn("fancynet-3b/Q8_0/fancynet-3b-Q8_0.gguf"), fancynet3b());
  for (let i = 1; i <= 3; i++) {
    await writeSafetensorsFile(
      standIn(`mixtral-8x7b/fp16/model-0000${i}-of-00003.safetensors`),
      Math.round(31 * GB),
    );
  }
  await writeSafetensorsFile(standIn("mistral-7b-instruct/bf16/model.safetensors"), Math.round(14.5 * GB));
  await writeNotGguf(standIn("whisper-large/onnx/model.onnx"), 1_500_000);

  // A download in progress that advances: `<file>.part` grows toward the size in `<file>.size`.
  const partial = standIn("phi-3-mini/Q4_K_M/phi-3-mini-Q4_K_M.gguf");
  const total = Math.round(2.4 * GB);
  await writeGgufFile(`${partial}.part`, {
    architecture: "phi3",
    blockCount: 32,
    headCount: 32,
    embeddingLength: 3072,
    contextLength: 4096,
    weightsBytes: Math.round(total * 0.05),
  });
  await writeFile(`${partial}.size`, String(total));
  await Promise.all(written.map((file) => writeFile(`${file}.generated`, "")));
  let done = total * 0.05;
  return async () => {
    if (done >= total) return;
    done = Math.min(total, done + total * 0.03);
    const handle = await open(`${partial}.part`, "r+");
    await handle.truncate(Math.round(done));
    await handle.close();
    // A finished download is renamed into place, as a downloader would.
    if (done >= total) await rename(`${partial}.part`, partial);
  };
}

/**
 * Why a source on this server's own mirror cannot be fetched (its answer to a HEAD), or null: a
 * rollout to a version the mirror does not hold fails its new replicas, as on a real node, and
 * rolls itself back (SPEC §11.4). Sources elsewhere are taken as found: the demo downloads nothing.
 */
async function mirrorLacks(server: string, source: string): Promise<string | null> {
  if (!source.startsWith(`${server}/mirror/`)) return null;
  const res = await fetch(source, { method: "HEAD" }).catch((err: Error) => err);
  if (res instanceof Error) return `fetching ${source}: ${res.message}`;
  return res.ok ? null : `fetching ${source}: ${res.status} ${res.statusText}`;
}

/**
 * Each simulated node runs the real agent (heartbeat loop and supervisor) over a simulated machine
 * and simulated engines: replicas appear when the scheduler places them, exactly as on a fleet.
 */
function startAgent(server: string, node: SimNode, intervalSeconds: number, logger: Logger): RunningAgent {
  const engines = simulatedEngines({ weightsMissing: (replica) => mirrorLacks(server, replica.source) });
  const selfHeldGB = (node.selfReported ?? []).reduce((sum, r) => sum + (r.memoryGB ?? 0), 0);
  const log: AgentLog = {
    // The demo's log is for the operator watching it: engines starting is what the dashboard shows.
    info: () => undefined,
    warn: (line) => logger.warn({ node: node.facts.name }, line),
  };
  return runAgent({
    server,
    machine: simulatedMachine(node.facts, () => engines.memoryInUseGB() + selfHeldGB),
    supervisor: new Supervisor({ runner: engines, log }),
    intervalSeconds,
    selfReported: node.selfReported ?? [],
    log,
  });
}

const DEMO_USAGE = `llmgw demo [--data-dir D] [--listen HOST:PORT]

  llmgw serve with a simulated fleet: a dozen nodes (some with GPUs) whose agents start replicas
  after a short delay, a mirror of small generated versions, and models of every class.

  --data-dir D          where the demo keeps its store, mirror and llmgw.yaml, created when
                        missing (default: a new temporary directory)
  --listen HOST:PORT    where to answer (default 127.0.0.1:8080)
${LOG_USAGE}`;

export async function demo(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      "data-dir": { type: "string" },
      listen: { type: "string" },
      help: { type: "boolean", short: "h" },
      ...logOptions,
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(DEMO_USAGE);
    return;
  }
  const log = loggerFrom(values);
  const given = values["data-dir"];
  const dataDir = given ? resolve(given) : await mkdtemp(join(tmpdir(), "llmgw-demo-"));
  await mkdir(dataDir, { recursive: true });
  const configFile = join(dataDir, "llmgw.yaml");
  await writeFile(
    configFile,
    [
      `heartbeatSeconds: ${HEARTBEAT_SECONDS}`,
      // A minute rather than five: the demo shows a model coming back down while one watches.
      "autoscale: { scaleDownSeconds: 60 }",
      "quotas:",
      "  - { owner: research, memoryGB: 256, cpuCores: 64, gpus: 4, replicas: 12 }",
      "  - { owner: interns, memoryGB: 64, cpuCores: 24, gpus: 0, replicas: 6 }",
      "models:",
      "  - name: embed-small",
      "    description: declared in llmgw.yaml, so read-only through the API",
      "    source: https://example.invalid/nomic-embed-text-v1.5.Q8_0.gguf",
      "    contextLength: 2048",
      "    routingProfile: embedding",
      "    class: critical",
      "    owner: platform",
      "    scaling: { min: 2, max: 2 }",
      "    profiles: [{ name: cpu, engine: llamacpp, minMemoryGB: 2, cpuCores: 1 }]",
      "",
    ].join("\n"),
  );
  const config = loadConfig({ config: configFile, dataDir, listen: values.listen });
  // As `llmgw serve`: a rejection nobody handled is logged, not the end of the server.
  guardProcess(log);
  const advance = await writeMirror(config.mirror.dir);
  const server = await startServer(config, { webDist: ensureDashboard(log), log, agent: agentSource(log) });
  stopOnSignals(server);

  const models = catalogue(config.mirror.baseUrl);
  for (const model of models) {
    const res = await fetch(`${server.url}/api/v1/models`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(model),
    });
    if (!res.ok && res.status !== 409)
      log.error({ model: model.name, status: res.status, body: await res.text() }, "demo model refused");
  }
  const nodes = fleet();
  for (const node of nodes) startAgent(server.url, node, HEARTBEAT_SECONDS, log);
  setInterval(() => void advance().catch(() => undefined), 1000).unref();
  log.info(
    { url: server.url, nodes: nodes.length, models: models.length + 1 },
    `llmgw demo: ${nodes.length} simulated nodes, ${models.length + 1} models; open ${server.url}`,
  );
}

import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { access, readFile } from "node:fs/promises";
import { connect } from "node:net";
import os from "node:os";
import { delimiter, join } from "node:path";
import type { Heartbeat } from "@llmgw/domain";
import { DEFAULT_ENGINE_COMMANDS, programOf } from "./command";
import { AGENT_VERSION } from "./version";

/** What a heartbeat says about the node (SPEC §1 Node, without what the server adds). */
export type NodeFacts = Heartbeat["node"];

/** Describes the machine an agent runs on; asked on every heartbeat, since free memory moves. */
export interface Machine {
  facts(): Promise<NodeFacts>;
}

const GiB = 1024 ** 3;

export type ProbeOptions = {
  labels?: Record<string, string>;
  name?: string;
  /** Where executables are looked for (nvidia-smi, engines); the process's PATH by default. */
  path?: string;
  /**
   * How each engine starts (`--engine-command` over the defaults): an engine is installed when
   * its command's program is found, on the search path or where the command names it.
   */
  engineCommands?: ReadonlyMap<string, string>;
};

/**
 * This machine, for real. Memory, cores, GPUs and engines are probed once (they do not change
 * under a running agent); free memory is read on every call.
 */
export function probeMachine(options: ProbeOptions = {}): Machine {
  const searchPath = options.path ?? process.env.PATH ?? "";
  let fixed: Promise<Omit<NodeFacts, "freeMemoryGB">> | undefined;
  const probeFixed = async () => {
    const [gpus, engines] = await Promise.all([
      probeGpus(searchPath),
      probeEngines(options.engineCommands ?? DEFAULT_ENGINE_COMMANDS, searchPath),
    ]);
    return {
      name: options.name ?? os.hostname(),
      memoryGB: round(os.totalmem() / GiB, 1),
      cpuCount: os.availableParallelism(),
      gpuTotal: gpus.count,
      gpuMemoryGB: gpus.memoryGB,
      engines,
      labels: options.labels ?? {},
      agentVersion: AGENT_VERSION,
    };
  };
  return {
    async facts() {
      fixed ??= probeFixed();
      return { ...(await fixed), freeMemoryGB: round((await availableBytes()) / GiB, 1) };
    },
  };
}

/**
 * MemAvailable counts the page cache the kernel would give back, which is what an engine about to
 * start can actually get; os.freemem is the fallback where /proc is absent.
 */
async function availableBytes(): Promise<number> {
  try {
    const meminfo = await readFile("/proc/meminfo", "utf8");
    const kB = /^MemAvailable:\s+(\d+)\s+kB/m.exec(meminfo)?.[1];
    if (kB !== undefined) return Number(kB) * 1024;
  } catch {
    // Not Linux: fall through.
  }
  return os.freemem();
}

/** GPUs where nvidia-smi answers; no nvidia-smi, or one that fails, means no GPUs, never a crash. */
async function probeGpus(searchPath: string): Promise<{ count: number; memoryGB: number }> {
  const none = { count: 0, memoryGB: 0 };
  const smi = await findExecutable("nvidia-smi", searchPath);
  if (!smi) return none;
  const out = await new Promise<string | null>((resolve) => {
    execFile(
      smi,
      ["--query-gpu=memory.total", "--format=csv,noheader,nounits"],
      { timeout: 10_000 },
      (err, stdout) => resolve(err ? null : stdout),
    );
  });
  if (out === null) return none;
  return gpusOf(out);
}

/**
 * nvidia-smi's `memory.total` CSV (one line per GPU, in MiB) as SPEC §1 counts it: the number of
 * GPUs, and the memory of one. Mixed GPUs report the smallest, since a replica may land on any.
 */
function gpusOf(csv: string): { count: number; memoryGB: number } {
  const mib = csv
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map(Number)
    .filter((n) => Number.isFinite(n) && n >= 0);
  if (mib.length === 0) return { count: 0, memoryGB: 0 };
  return { count: mib.length, memoryGB: round(Math.min(...mib) / 1024, 1) };
}

async function probeEngines(commands: ReadonlyMap<string, string>, searchPath: string): Promise<string[]> {
  const engines: string[] = [];
  for (const [engine, template] of commands) {
    const program = programOf(template);
    if (program !== null && (await findProgram(program, searchPath))) engines.push(engine);
  }
  return engines;
}

/** A program named with a directory (`/opt/vllm/bin/vllm`) is there or not; a bare name is searched. */
async function findProgram(program: string, searchPath: string): Promise<string | null> {
  if (!program.includes("/")) return findExecutable(program, searchPath);
  try {
    await access(program, constants.X_OK);
    return program;
  } catch {
    return null;
  }
}

/** The first executable of that name on the search path, as a shell would find it. */
export async function findExecutable(name: string, searchPath: string): Promise<string | null> {
  for (const dir of searchPath.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; keep looking.
    }
  }
  return null;
}

/**
 * The address this machine reaches `server` from: where other machines on that network reach its
 * engines, unless `--advertise-host` says otherwise (SPEC §8.6). Learned from a connection made
 * for the purpose, so a machine with several networks answers with the right one.
 */
export function localAddressTowards(server: string): Promise<string> {
  const url = new URL(server);
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, timeout: 10_000 });
    socket.once("connect", () => {
      const address = socket.localAddress ?? "";
      socket.destroy();
      if (address) resolve(address.replace(/^::ffff:(?=\d+\.)/, ""));
      else reject(new Error(`no local address towards ${server}`));
    });
    socket.once("timeout", () => socket.destroy(new Error(`timed out connecting to ${server}`)));
    socket.once("error", reject);
  });
}

/**
 * A fixed description for the demo's simulated nodes. Free memory follows what the simulation
 * says is in use, so the fleet page moves as replicas start.
 */
export function simulatedMachine(facts: Omit<NodeFacts, "freeMemoryGB">, usedGB: () => number): Machine {
  return {
    async facts() {
      return { ...facts, freeMemoryGB: round(Math.max(0, facts.memoryGB - usedGB()), 1) };
    },
  };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

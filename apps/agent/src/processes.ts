import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { type ArgRules, DEFAULT_ALLOWED_ARGS, refusedArgs, shownName } from "@llmgw/domain";
import { engineArgv, flagsOf } from "./command";
import { engineEnvironment } from "./engineEnv";
import { request } from "./http";
import {
  type DesiredReplica,
  type EngineProcess,
  type EngineRunner,
  type Exit,
  type Launch,
  ReplicaRefused,
} from "./supervisor";
import type { LocalWeights, WeightsCache } from "./weights";

/** Enough of an engine's output to say why it died, without keeping a chatty engine's whole log. */
const OUTPUT_LINES = 20;

export type ProcessEngineOptions = {
  /** Engine name → command template (`engineCommands`). */
  commands: ReadonlyMap<string, string>;
  /** The args this node allows per engine (`argRules`); default: the built-in lists. */
  allowedArgs?: ArgRules;
  /** What engines start with; default: `engineEnvironment(process.env)` at each start. */
  env?: Record<string, string>;
  /**
   * `{host}`: where engines listen and are reached (`--advertise-host`, or the address the agent
   * reaches the server from); asked at each start. Default: loopback.
   */
  host?: () => Promise<string>;
  /** Where mirrored weights come from; without it, every source goes to the engine as `{path}`. */
  weights?: WeightsCache;
};

/**
 * Engines as real processes: one per replica, started from the engine's command template on a
 * free port, health-checked with GET /health, measured from /proc. A replica this node will not
 * run as asked (its source, an arg, an engine it has no command for) is refused before anything
 * starts, and not retried: the same replica would be refused again.
 */
export function processEngines(options: ProcessEngineOptions): EngineRunner {
  const { commands, allowedArgs = DEFAULT_ALLOWED_ARGS } = options;
  // Ports handed out and not yet released, so two replicas starting together never share one.
  const taken = new Set<number>();
  return {
    async start(replica, launch) {
      const template = commands.get(replica.engine);
      if (template === undefined) {
        throw new ReplicaRefused(
          `no command for engine ${shownName(replica.engine)} on this node (see --engine-command)`,
        );
      }
      const refusal =
        refusedSource(replica.source) ??
        refusedNames(replica) ??
        refusedArgs(replica.engine, replica.args, allowedArgs, flagsOf(template));
      if (refusal) throw new ReplicaRefused(refusal);
      // Refusals first: weights are not fetched for an engine this node would not start.
      const weights = await localWeights(replica, launch, options.weights);
      try {
        const host = options.host ? await options.host() : "127.0.0.1";
        launch.signal.throwIfAborted();
        const port = await freePort(host, taken);
        const [command, ...args] = engineArgv(template, replica, { path: weights.path, host, port });
        if (command === undefined) throw new Error(`empty engine command for ${replica.engine}`);
        taken.add(port);
        const engine = startProcess(
          command,
          args,
          endpointOf(host, port),
          options.env ?? engineEnvironment(process.env),
        );
        void engine.exited.then(() => {
          taken.delete(port);
          weights.release();
        });
        return engine;
      } catch (err) {
        weights.release();
        throw err;
      }
    },
  };
}

/**
 * `{path}`: the mirrored version's files in the cache, fetched when missing (SPEC §8.2), or the
 * source unchanged for one not in the mirror (no files).
 */
async function localWeights(
  replica: DesiredReplica,
  launch: Launch,
  cache: WeightsCache | undefined,
): Promise<LocalWeights> {
  if (replica.files.length === 0 || !cache) return { path: replica.source, release: () => undefined };
  return cache.fetch(replica.files, {
    signal: launch.signal,
    progress: (bytesDone, bytesTotal) => launch.progress({ phase: "download", bytesDone, bytesTotal }),
    waiting: launch.waiting,
  });
}

/** `http://host:port`, an IPv6 address in brackets. */
export function endpointOf(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** `{model}` and `{id}` fill words of the command: one that starts with "-" would be read as a flag. */
function refusedNames(replica: Pick<DesiredReplica, "model" | "id">): string | null {
  for (const [what, name] of [
    ["model", replica.model],
    ["replica id", replica.id],
  ] as const) {
    if (!/^[A-Za-z0-9._:][A-Za-z0-9._:-]{0,127}$/.test(name)) {
      return `refused ${what} ${JSON.stringify(name.slice(0, 200))}: not a name`;
    }
  }
  return null;
}

/**
 * Weights come from the mirror or another web server (SPEC §4): a local path would let the server
 * point an engine at any file on the node, and a source starting with "-" would be read as a flag.
 */
export function refusedSource(source: string): string | null {
  const url = URL.canParse(source) ? new URL(source) : null;
  if (url && (url.protocol === "http:" || url.protocol === "https:") && !/\s/.test(source)) return null;
  return `refused source ${JSON.stringify(source.slice(0, 200))}: weights come from an http(s) URL`;
}

function startProcess(
  command: string,
  args: string[],
  endpoint: string,
  env: Record<string, string>,
): EngineProcess {
  // Its own process group, so a stop reaches the workers an engine forks (vLLM does), and a
  // Ctrl-C meant for the agent reaches the engines only through the agent's orderly stop.
  // A clean environment (engineEnv.ts): the agent's token never reaches an engine.
  const child = spawn(command, args, { detached: true, env, stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (line.trim()) output.push(line.trimEnd());
    }
    output.splice(0, Math.max(0, output.length - OUTPUT_LINES));
  };
  // Read both pipes to the end: an engine blocked on a full pipe would look hung.
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let gone = false;
  const exited = new Promise<Exit>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    // A command that cannot be spawned (not installed) may emit no exit at all.
    child.once("error", (err) => resolve({ code: null, signal: null, error: `${command}: ${err.message}` }));
  }).finally(() => {
    gone = true;
    // Workers the engine forked must not outlive it holding memory or GPUs the replica released.
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // No one left in the group: the usual case.
      }
    }
  });

  const signal = (sig: NodeJS.Signals) => {
    if (gone || child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      // The group is already gone.
    }
  };

  return {
    exited,
    endpoint,
    async healthy() {
      if (gone) return false;
      try {
        const res = await request(`${endpoint}/health`, { signal: AbortSignal.timeout(2000) });
        res.drop();
        return res.status === 200;
      } catch {
        return false;
      }
    },
    async measureMemoryGB() {
      if (gone || child.pid === undefined) return null;
      return residentGB(child.pid);
    },
    async stop(graceMs) {
      signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
    lastOutput: () => [...output],
  };
}

/** The process's resident memory (VmRSS), in GB; null where /proc does not say (not Linux). */
export async function residentGB(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kB = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kB === undefined ? null : Math.round((Number(kB) / 1024 ** 2) * 100) / 100;
  } catch {
    return null;
  }
}

/** A port nobody listens on now, as the kernel picks one; skipping those already handed out. */
async function freePort(host: string, taken: ReadonlySet<number>): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once("error", reject);
      server.listen(0, host, () => {
        const address = server.address();
        const port = typeof address === "object" && address ? address.port : 0;
        server.close(() => resolve(port));
      });
    });
    if (port > 0 && !taken.has(port)) return port;
  }
  throw new Error("no free port to start an engine on");
}

import { parseArgs } from "node:util";
import { argRules } from "@llmgw/domain";
import { LOG_USAGE, loggerFrom, logOptions } from "@llmgw/log";
import { engineCommands } from "./command";
import { engineEnvironment, engineEnvNames } from "./engineEnv";
import { runAgent } from "./loop";
import { localAddressTowards, probeMachine } from "./machine";
import { processEngines } from "./processes";
import { type AgentLog, Supervisor } from "./supervisor";
import { AGENT_VERSION } from "./version";
import { DEFAULT_CACHE_DIR, WeightsCache } from "./weights";

const DEFAULT_SERVER = "http://127.0.0.1:8080";

const USAGE = `llmgw agent [--server URL] [--token T] [--label k=v]… [--name N] [--interval S]
            [--engine-command ENGINE='COMMAND']… [--allow-arg ENGINE=FLAG]… [--engine-env NAME]…
            [--cache-dir DIR] [--cache-max-gb N] [--advertise-host HOST] [--version]

  --server URL          the control plane (or LLMGW_SERVER; default ${DEFAULT_SERVER})
  --token T             an agent token (or LLMGW_TOKEN); sent as Authorization: Bearer, to the
                        server and its mirror only
  --label k=v           a node label for profiles' nodeSelector; repeatable
  --name N              the node's name (or LLMGW_NAME; default: the hostname)
  --interval S          seconds between heartbeats until the server says (default 5)
  --engine-command E=C  how to start engine E; placeholders {path} (the weights: the file, or the
                        version's directory when it has several) {host} {port} {threads} (the
                        profile's cpuCores) {model} {id} {args}. E counts as installed when the
                        command's program is found. Defaults:
                          llamacpp='llama-server --model {path} --host {host} --port {port}
                                    --threads {threads} --metrics {args}'
                          vllm='vllm serve {path} --host {host} --port {port}
                                --served-model-name {model} {args}'
  --allow-arg E=FLAG    let profiles give engine E this flag (with or without one value), on
                        this node only; repeatable. Built in: the engines' tuning flags, never
                        one naming a file, host, port or log, nor one the command sets
  --engine-env NAME     pass this variable to the engines too; repeatable. They start with PATH,
                        HOME, locale, temp dirs, CUDA_*/NVIDIA_* and the like, never LLMGW_*
  --cache-dir DIR       where mirrored weights are kept, as <model>/<version>/<file>
                        (default ~/.cache/llmgw/weights)
  --cache-max-gb N      the most the cache may hold; versions no replica uses are deleted, least
                        recently used first, to stay under it (default: as much as leaves 10% of
                        the disk free)
  --advertise-host HOST where engines listen and other machines reach them ({host}, and the
                        replica's endpoint http://HOST:PORT); default: the address this machine
                        reaches the server from
  --version             print the agent's version and exit
${LOG_USAGE}`;

/** `llmgw agent`: reports this machine and runs the replicas the server places on it. */
export async function agent(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      server: { type: "string" },
      token: { type: "string" },
      label: { type: "string", multiple: true, default: [] },
      name: { type: "string" },
      interval: { type: "string" },
      "engine-command": { type: "string", multiple: true, default: [] },
      "allow-arg": { type: "string", multiple: true, default: [] },
      "engine-env": { type: "string", multiple: true, default: [] },
      "cache-dir": { type: "string" },
      "cache-max-gb": { type: "string" },
      "advertise-host": { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean" },
      ...logOptions,
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (values.version) {
    process.stdout.write(`${AGENT_VERSION}\n`);
    return;
  }
  // The flags, else the environment: a service's environment file (install.sh) holds all three.
  const env = process.env;
  const server = values.server ?? (env.LLMGW_SERVER || DEFAULT_SERVER);
  if (!URL.canParse(server)) {
    throw new Error(`${values.server ? "--server" : "LLMGW_SERVER"} ${server} is not a URL`);
  }
  const name = values.name ?? (env.LLMGW_NAME || undefined);
  const intervalSeconds = values.interval === undefined ? 5 : Number(values.interval);
  if (!(intervalSeconds > 0)) throw new Error(`--interval wants seconds, got "${values.interval}"`);

  const maxGB = values["cache-max-gb"] === undefined ? null : Number(values["cache-max-gb"]);
  if (maxGB !== null && !(maxGB > 0))
    throw new Error(`--cache-max-gb wants GB, got "${values["cache-max-gb"]}"`);
  const advertised = values["advertise-host"];
  if (advertised !== undefined && !/^[A-Za-z0-9_][A-Za-z0-9.:_-]{0,252}$/.test(advertised)) {
    throw new Error(`--advertise-host wants a host name or address, got "${advertised}"`);
  }
  const token = values.token ?? (env.LLMGW_TOKEN || undefined);

  const logger = loggerFrom(values);
  const log: AgentLog = { info: (line) => logger.info(line), warn: (line) => logger.warn(line) };
  const commands = engineCommands(values["engine-command"]);
  const machine = probeMachine({ labels: labels(values.label), name, engineCommands: commands });
  const cacheDir = values["cache-dir"] ?? DEFAULT_CACHE_DIR;
  let hostLearned: string | undefined;
  const weights = new WeightsCache({
    cacheDir,
    server,
    token: token ?? null,
    maxBytes: maxGB === null ? null : maxGB * 1e9,
    log,
  });
  const supervisor = new Supervisor({
    runner: processEngines({
      commands,
      allowedArgs: argRules(values["allow-arg"]),
      env: engineEnvironment(process.env, engineEnvNames(values["engine-env"])),
      // Learned once it is learned: a server away for a moment must not keep an engine from starting.
      host: async () => {
        hostLearned ??= advertised ?? (await localAddressTowards(server));
        return hostLearned;
      },
      weights,
    }),
    log,
  });
  const facts = await machine.facts();
  log.info(
    `${facts.name}: ${facts.memoryGB} GB, ${facts.cpuCount} cores, ${facts.gpuTotal} GPUs, engines [${(facts.engines ?? []).join(", ")}]; weights in ${cacheDir}; reporting to ${server}`,
  );
  const running = runAgent({
    keep: (versions) => weights.keep(versions),
    server,
    token,
    machine,
    supervisor,
    intervalSeconds,
    log,
  });

  const stop = (signal: string) => {
    log.info(`${signal}: stopping the engines`);
    // A second signal means "now": the engines are left to their process groups' fate.
    process.once("SIGINT", () => process.exit(130));
    process.once("SIGTERM", () => process.exit(143));
    running.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.warn(`stopping failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

function labels(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flag of flags) {
    const eq = flag.indexOf("=");
    if (eq <= 0) throw new Error(`--label wants key=value, got "${flag}"`);
    out[flag.slice(0, eq)] = flag.slice(eq + 1);
  }
  return out;
}

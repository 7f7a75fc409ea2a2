import { parseArgs } from "node:util";
import { LOG_USAGE, loggerFrom, logOptions } from "../logging";
import { engineCommands } from "./command";
import { argRules } from "./engineArgs";
import { engineEnvironment, engineEnvNames } from "./engineEnv";
import { runAgent } from "./loop";
import { probeMachine } from "./machine";
import { processEngines } from "./processes";
import { type AgentLog, Supervisor } from "./supervisor";

const USAGE = `llmgw agent --server URL [--token T] [--label k=v]… [--name N] [--interval S]
            [--engine-command ENGINE='COMMAND']… [--allow-arg ENGINE=FLAG]… [--engine-env NAME]…

  --server URL          the control plane, e.g. http://10.0.0.1:8080
  --token T             an agent token (or LLMGW_TOKEN); sent as Authorization: Bearer
  --label k=v           a node label for profiles' nodeSelector; repeatable
  --name N              the node's name (default: the hostname)
  --interval S          seconds between heartbeats until the server says (default 5)
  --engine-command E=C  how to start engine E; placeholders {source} {port} {args} {model} {id}
                        default llamacpp='llama-server --model {source} --port {port} {args}'
                                vllm='vllm serve {source} --port {port} {args}'
  --allow-arg E=FLAG    let profiles give engine E this flag (with or without one value), on
                        this node only; repeatable. Built in: the engines' tuning flags, never
                        one naming a file, host, port or log, nor one the command sets
  --engine-env NAME     pass this variable to the engines too; repeatable. They start with PATH,
                        HOME, locale, temp dirs, CUDA_*/NVIDIA_* and the like, never LLMGW_*
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
      help: { type: "boolean", short: "h" },
      ...logOptions,
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (!values.server) throw new Error(`agent needs --server URL\n\n${USAGE}`);
  if (!URL.canParse(values.server)) throw new Error(`--server ${values.server} is not a URL`);
  const intervalSeconds = values.interval === undefined ? 5 : Number(values.interval);
  if (!(intervalSeconds > 0)) throw new Error(`--interval wants seconds, got "${values.interval}"`);

  const logger = loggerFrom(values);
  const log: AgentLog = { info: (line) => logger.info(line), warn: (line) => logger.warn(line) };
  const machine = probeMachine({ labels: labels(values.label), name: values.name });
  const supervisor = new Supervisor({
    runner: processEngines({
      commands: engineCommands(values["engine-command"]),
      allowedArgs: argRules(values["allow-arg"]),
      env: engineEnvironment(process.env, engineEnvNames(values["engine-env"])),
    }),
    log,
  });
  const facts = await machine.facts();
  log.info(
    `${facts.name}: ${facts.memoryGB} GB, ${facts.cpuCount} cores, ${facts.gpuTotal} GPUs, engines [${(facts.engines ?? []).join(", ")}]; reporting to ${values.server}`,
  );
  const running = runAgent({
    server: values.server,
    token: values.token ?? process.env.LLMGW_TOKEN,
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

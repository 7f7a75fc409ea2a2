import { agent } from "@llmgw/agent";
import { ConfigError } from "@llmgw/api";
import { LOG_USAGE } from "@llmgw/log";
import { ctl } from "./ctl";
import { demo } from "./demo/demo";
import { serve } from "./serve";

const USAGE = `llmgw — a control plane for serving LLMs on your own fleet

  llmgw serve [--config F] [--data-dir D] [--listen HOST:PORT]   the API and dashboard on one port
  llmgw demo  [--data-dir D] [--listen HOST:PORT]                 serve with a simulated fleet and mirror
  llmgw agent --server URL [--token T] [--label k=v]…            report this machine and run its replicas
  llmgw ctl   <models|model|fleet|mirror|quotas|quota|headroom|audit> …   the API from a terminal

serve, demo and agent log one line an event on standard output:
${LOG_USAGE}`;

const commands: Record<string, (args: string[]) => Promise<void>> = { serve, demo, agent, ctl };

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(USAGE);
    return;
  }
  const run = commands[command];
  if (!run) {
    process.stderr.write(`llmgw: no command "${command}"\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  await run(rest);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const message = err instanceof ConfigError || err instanceof Error ? err.message : String(err);
  process.stderr.write(`llmgw: ${message}\n`);
  process.exitCode = 1;
});

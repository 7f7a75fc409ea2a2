// One simulated node for the cold-start and autoscaling benches, in its own process (forked by
// report.ts `child`):
//   simAgent.ts SERVER [readyAfterMs] [intervalSeconds] [exact]
// The real agent (runAgent's heartbeat loop and the Supervisor, with its default health checks
// every second) over a simulated machine and simulated engines, as `llmgw demo` runs each node:
// a placed replica starts a stand-in OpenAI engine on a port of its own, healthy after about
// readyAfterMs (±25%; `exact`: readyAfterMs itself, so a bench can take the engine's load out of
// what it times). The server's reply sets the heartbeat interval (the server's heartbeatSeconds);
// intervalSeconds is only the first one.
// Tells its parent when it runs; on SIGTERM stops its engines and tells the server.
import { AGENT_VERSION, type AgentLog, runAgent, Supervisor, simulatedMachine } from "@llmgw/agent";
import { simulatedEngines } from "@llmgw/cli/simulated";

const [server = "", readyAfterText = "500", intervalText = "1", exact = ""] = process.argv.slice(2);
const engines = simulatedEngines({
  readyAfterMs: Number(readyAfterText),
  ...(exact === "exact" ? { random: () => 0.5 } : {}),
});
const log: AgentLog = {
  info: () => undefined,
  warn: (line) => console.error(`bench agent: ${line}`),
};
const agent = runAgent({
  server,
  machine: simulatedMachine(
    {
      name: "cold-node",
      memoryGB: 64,
      cpuCount: 16,
      engines: ["llamacpp"],
      labels: {},
      agentVersion: AGENT_VERSION,
    },
    () => engines.memoryInUseGB(),
  ),
  supervisor: new Supervisor({ runner: engines, log }),
  intervalSeconds: Number(intervalText),
  log,
});
process.once("SIGTERM", () => void agent.stop().finally(() => process.exit(0)));
process.send?.({ node: "cold-node" });

// `llmgw agent` (the CLI dispatches to `agent`), and the agent's parts that `llmgw demo` and the
// benches run over a simulated machine: the same heartbeat loop and supervisor as a real node.
export { type AgentOptions, type RunningAgent, runAgent } from "./loop";
export { type Machine, type NodeFacts, simulatedMachine } from "./machine";
export { agent } from "./main";
export {
  type AgentLog,
  type DesiredReplica,
  type EngineProcess,
  type EngineRunner,
  type Exit,
  ReplicaRefused,
  type ReportedReplica,
  Supervisor,
} from "./supervisor";
export { AGENT_VERSION } from "./version";

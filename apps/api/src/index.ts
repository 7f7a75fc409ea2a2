export {
  createLogger,
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type Logger,
  type LogLevel,
  silentLogger,
} from "@llmgw/log";
export { type AppOptions, benchesOf, createApp, gatewayOf, nodeRequestPathOf } from "./app";
export { type Autoscaler, startAutoscaler } from "./autoscale/autoscaler";
export type { Role } from "./config";
export { type Config, ConfigError, loadConfig } from "./config";
export { Control } from "./control/control";
export type { Deps } from "./deps";
// The server's parts the benches (scripts/bench) assemble a server of their own from.
export { startHeadroomChanges } from "./events/headroomChanges";
export { type ClientAdmission, OPEN_ADMISSION } from "./gateway/clientAdmission";
export type { GatewayDemand } from "./gateway/dispatcher";
export type { Gateway, GatewayOptions } from "./gateway/gateway";
export type { GatewayMeter, GatewayNow, RequestOutcome } from "./gateway/meter";
export type { AgentBuild, AgentSource } from "./install/agentFile";
export { listen } from "./listen";
export { openDeps } from "./openDeps";
export { guardProcess } from "./processGuard";
export { type RunningServer, startServer } from "./server";
export { markSilentNodesDown } from "./services/liveness";
export { startUsageRecorder, USAGE_RECORD_MS } from "./usage/recorder";
export { UsageTally } from "./usage/tally";
export { Snapshot, withNode } from "./world";

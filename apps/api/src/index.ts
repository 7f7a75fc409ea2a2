export {
  createLogger,
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type Logger,
  type LogLevel,
  silentLogger,
} from "@llmgw/client/log";
export { type AppOptions, benchesOf, createApp, gatewayOf } from "./app";
export type { CreatedToken, SessionView, TokenCreate, TokenView } from "./auth/schemas";
export type { Role } from "./config";
export { type Config, ConfigError, loadConfig } from "./config";
export type { AppType } from "./contract/appType";
export { type Deps, openDeps } from "./deps";
export { type ClientAdmission, OPEN_ADMISSION } from "./gateway/admission";
export type { Gateway, GatewayOptions } from "./gateway/gateway";
export type { GatewayMeter, GatewayNow, RequestOutcome } from "./gateway/meter";
export type { AgentBuild, AgentSource } from "./install/agentFile";
export { type RunningServer, startServer } from "./server";

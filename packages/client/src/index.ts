export { type Refusal, refusalOf } from "@llmgw/domain";
export type { AppType } from "./appType";
export * from "./events";
export { ApiFailure, answer, type Connection, type ConnectOptions, connect, segment, sent } from "./http";

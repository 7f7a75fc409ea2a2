export { type AppType, contract } from "@llmgw/api/contract";
export * from "./events";
export { ApiFailure, answer, type Connection, type ConnectOptions, connect, segment, sent } from "./http";
export { type Refusal, refusalOf } from "./refusal";

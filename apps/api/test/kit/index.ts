// Stand-ins for tests, the browser tests' server and `llmgw demo`; `serve` never loads them.

export * from "./agentProcess";
export * from "./bigFleet";
export * from "./ggufLlama";
export * from "./hostileHub";
export * from "./hubRepos";
export * from "./hubStandIn";
export * from "./llamaProcess";
export * from "./tokens";

// The process's logger and how a command chooses it: shared by the server (apps/api), `llmgw serve`
// and `demo`, and the agent, which must not load the API to log.
export * from "./logger";
export * from "./settings";

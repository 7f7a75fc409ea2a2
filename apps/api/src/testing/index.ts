// Stand-ins for tests, the browser tests' server and `llmgw demo`; `serve` never loads them.

// Tokens as `llmgw.yaml` declares them, for tests that start a server with its own tokens.
export { newToken, sha256Hex } from "../auth/secrets";
export * from "./agentProcess";
export * from "./engine";
export * from "./ggufFiles";
export * from "./ggufLlama";
export * from "./ggufModels";
export * from "./llamaProcess";

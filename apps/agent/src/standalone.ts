import { agent } from "./main";

// The agent on its own: the entry of the one-file agent a server hands out at /install/agent.mjs
// (`node agent.mjs --server URL …`, the same flags as `llmgw agent`). Nothing here may reach the
// API, the store or the dashboard: test/bundle.test.ts reads the bundle's inputs.

agent(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`llmgw agent: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});

// A server with tokens that hands out its agent (SPEC §5), for tests/join.spec.ts, started by that
// spec as a child process: tokens from LLMGW_E2E_TOKENS, its own port (printed on the "ready"
// line), store and copy of the dashboard, and the agent's bundle built from this checkout.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AGENT_VERSION } from "@llmgw/agent";
import { agentBundle } from "@llmgw/agent/bundle";
import { loadConfig, startServer } from "@llmgw/api";
import { tokensYaml } from "@llmgw/api/testing";
import { copyDashboard, tokensFromEnv } from "./childServer";
import { stopOnSignal } from "./seed";

const tokens = tokensFromEnv();
const dataDir = await mkdtemp(join(tmpdir(), "llmgw-e2e-join-"));
const configFile = join(dataDir, "llmgw.yaml");
await writeFile(configFile, `heartbeatSeconds: 600\n${tokensYaml(tokens)}`);
// No environment: the shared server's settings must not reach this one.
const config = loadConfig({ config: configFile, dataDir, listen: "127.0.0.1:0" }, {});
const server = await startServer(config, {
  webDist: await copyDashboard(dataDir),
  agent: { version: AGENT_VERSION, build: agentBundle },
});
stopOnSignal(server, dataDir);

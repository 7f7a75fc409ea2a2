// A server with an empty mirror and no nodes for tests/first-run.spec.ts, started by that spec as
// a child process (the shared server is seeded, so it never shows an empty screen): tokens from
// LLMGW_E2E_TOKENS, its own port (printed on the "ready" line), store and copy of the dashboard.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startServer } from "@llmgw/api";
import { tokensYaml } from "@llmgw/api/testing";
import { copyDashboard, tokensFromEnv } from "./childServer";
import { stopOnSignal } from "./seed";

const tokens = tokensFromEnv();
const dataDir = await mkdtemp(join(tmpdir(), "llmgw-e2e-first-run-"));
const configFile = join(dataDir, "llmgw.yaml");
await writeFile(configFile, `heartbeatSeconds: 600\n${tokensYaml(tokens)}`);
// No environment: the shared server's settings must not reach this one.
const config = loadConfig({ config: configFile, dataDir, listen: "127.0.0.1:0" }, {});
const server = await startServer(config, { webDist: await copyDashboard(dataDir) });
stopOnSignal(server, dataDir);

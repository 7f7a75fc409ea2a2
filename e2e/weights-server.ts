// A server with the scheduler ON for tests/weights.spec.ts, started by that spec as a child
// process (the other specs share one that places nothing): the tiny llama, real weights llama.cpp
// runs, in its mirror as tiny/v1; tokens from LLMGW_E2E_TOKENS (the agent's names its node); its
// own port (printed on the "ready" line), store and copy of the dashboard.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startServer } from "@llmgw/api";
import { tokensYaml, writeTinyLlamaGguf } from "@llmgw/api/testing";
import { copyDashboard, tokensFromEnv } from "./childServer";
import { stopOnSignal } from "./seed";

const tokens = tokensFromEnv();
const dataDir = await mkdtemp(join(tmpdir(), "llmgw-e2e-weights-"));
const configFile = join(dataDir, "llmgw.yaml");
await writeFile(configFile, tokensYaml(tokens));
// No environment: LLMGW_SCHEDULER=off, set for the shared server, must not reach this one.
const config = loadConfig({ config: configFile, dataDir, listen: "127.0.0.1:0" }, {});
await writeTinyLlamaGguf(join(config.mirror.dir, "tiny", "v1", "tiny.gguf"));
const server = await startServer(config, { webDist: await copyDashboard(dataDir) });
stopOnSignal(server, dataDir);

// A server WITH tokens for tests/auth.spec.ts, started by that spec as a child process: its own
// port (printed on the "ready" line), its own temporary store, mirror and copy of the dashboard.
// LLMGW_E2E_TOKENS holds the tokens' names, roles and SHA-256s (the spec keeps the secrets);
// LLMGW_SESSION_TTL_SECONDS (read by loadConfig) makes sessions expire within the test.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startServer } from "@llmgw/api";
import { tokensYaml } from "@llmgw/api/testing";
import { writeGgufFile } from "@llmgw/simulation";
import { copyDashboard, tokensFromEnv } from "./childServer";
import { stopOnSignal } from "./seed";

const tokens = tokensFromEnv();

const dataDir = await mkdtemp(join(tmpdir(), "llmgw-e2e-auth-"));
const configFile = join(dataDir, "llmgw.yaml");
await writeFile(configFile, `heartbeatSeconds: 600\n${tokensYaml(tokens)}`);
const config = loadConfig({ config: configFile, dataDir, listen: "127.0.0.1:0" });
await writeGgufFile(join(config.mirror.dir, "tiny-llama/Q4_K_M/tiny-llama-Q4_K_M.gguf"), {
  architecture: "llama",
  blockCount: 8,
  headCount: 8,
  headCountKV: 8,
  embeddingLength: 512,
  contextLength: 4096,
  weightsBytes: 64 * 1024 * 1024,
});
const server = await startServer(config, { webDist: await copyDashboard(dataDir) });
stopOnSignal(server, dataDir);

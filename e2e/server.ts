// The real server for the browser tests: a fresh embedded store, a generated mirror, a declared
// model, quotas, and a small fleet reported over the real heartbeat endpoint.
import { existsSync } from "node:fs";
import { cp, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, startServer } from "@llmgw/api";
import { addGgufRepo, StandInHub } from "@llmgw/api/testing";
import { fancynet3b, llama31_8b, writeGgufFile, writeNotGguf, writeSafetensorsFile } from "@llmgw/simulation";
import { freshDatabase } from "@llmgw/store/testing";
import { seedFleet, seedModels, stopOnSignal } from "./seed";

const GB = 1024 ** 3;
const port = Number(process.env.LLMGW_E2E_PORT ?? 4599);
const dataDir = await mkdtemp(join(tmpdir(), "llmgw-e2e-"));
const configFile = join(dataDir, "llmgw.yaml");
await writeFile(
  configFile,
  `# Heartbeats are posted by the tests; a long interval keeps their nodes from going down meanwhile.
heartbeatSeconds: 600
quotas:
  - { owner: research, memoryGB: 512, cpuCores: 128, gpus: null, replicas: 40 }
models:
  - name: declared-embed
    source: https://example.invalid/embed.gguf
    contextLength: 2048
    class: critical
    owner: platform
    scaling: { min: 1, max: 1 }
    profiles: [{ name: cpu, engine: llamacpp, minMemoryGB: 2, cpuCores: 1 }]
`,
);
// LLMGW_E2E_STORE=postgres: the same server on a database of its own on TEST_DATABASE_URL's server
// (playwright.config.ts starts one for the flows that run on both stores), dropped when it stops.
const database = process.env.LLMGW_E2E_STORE === "postgres" ? await freshDatabase() : null;
const config = loadConfig(
  { config: configFile, dataDir, listen: `127.0.0.1:${port}` },
  database ? { ...process.env, DATABASE_URL: database.url } : process.env,
);
const mirror = config.mirror.dir;
await writeGgufFile(
  join(mirror, "llama-3.1-8b-instruct/Q4_K_M/llama-3.1-8b-instruct-Q4_K_M.gguf"),
  llama31_8b(),
);
await writeGgufFile(join(mirror, "fancynet-3b/Q8_0/fancynet-3b-Q8_0.gguf"), fancynet3b());
await writeSafetensorsFile(join(mirror, "mistral-7b-instruct/bf16/model.safetensors"), Math.round(14.5 * GB));
await writeNotGguf(join(mirror, "whisper-large/onnx/model.onnx"), 1_500_000);

// A stand-in Hugging Face Hub for "Add from Hugging Face" (tests/hub-pull.spec.ts): a small
// quantisation that pulls in a couple of seconds, and a large one slow enough to cancel.
const hub = await StandInHub.start();
hub.knobs.bytesPerSecond = 4_000_000;
await addGgufRepo(hub, join(dataDir, "hub-files"), {
  repo: "e2e-hub/Tiny-GGUF",
  quants: { Q4_K_M: 20_000_000, Q8_0: 200_000_000 },
});
config.huggingface = { endpoint: hub.url, token: null };

// A copy of the built dashboard: a rebuild elsewhere in the checkout while the tests run (vite
// empties dist first) would otherwise take the pages away from under them.
const builtWeb = fileURLToPath(new URL("../apps/web/dist", import.meta.url));
if (!existsSync(join(builtWeb, "index.html"))) {
  throw new Error(`no built dashboard in ${builtWeb}: run \`pnpm --filter @llmgw/web build\` first`);
}
const webDist = join(dataDir, "web");
await cp(builtWeb, webDist, { recursive: true });
const server = await startServer(config, { webDist });
await seedModels(server.url);
await seedFleet(server.url);
stopOnSignal(server, dataDir, database?.drop);

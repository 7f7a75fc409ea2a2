// A server with a big catalogue and fleet for tests/scale.spec.ts, started by that spec as a child
// process: its own port (printed on the "ready" line), its own temporary store and copy of the
// dashboard, no tokens (loopback only), the scheduler off. LLMGW_E2E_MODELS and LLMGW_E2E_NODES
// say how big; the spec then beats as an agent would through the API.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startServer } from "@llmgw/api";
import { seedBigFleet } from "@llmgw/api/testing";
import { copyDashboard } from "./childServer";
import { stopOnSignal } from "./seed";

const models = Number(process.env.LLMGW_E2E_MODELS ?? 500);
const nodes = Number(process.env.LLMGW_E2E_NODES ?? 2000);

const dataDir = await mkdtemp(join(tmpdir(), "llmgw-e2e-scale-"));
const configFile = join(dataDir, "llmgw.yaml");
// The seeded nodes do not beat: a long interval keeps them ready while the test runs.
await writeFile(configFile, "heartbeatSeconds: 600\n");
const config = loadConfig(
  { config: configFile, dataDir, listen: "127.0.0.1:0" },
  { ...process.env, LLMGW_SCHEDULER: "off" },
);
const webDist = await copyDashboard(dataDir);
const started = Date.now();
const server = await startServer(config, { webDist });
await seedBigFleet(server.deps, { models, nodes });
// The spec waits for this line, not the server's own "ready" one, which comes before the seeding.
console.log(`seeded ${models} models and ${nodes} nodes in ${Date.now() - started} ms on ${server.url}`);
stopOnSignal(server, dataDir);

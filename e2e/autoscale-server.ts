// A server with the scheduler ON and a window of 4 s, for tests/autoscale.spec.ts, started by that
// spec as a child process (the shared server places nothing): tokens from LLMGW_E2E_TOKENS (the
// agent's names its node); its own port (printed on the "ready" line), store and copy of the
// dashboard. The spec's own agent runs stand-in engines for what the scheduler places.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startServer } from "@llmgw/api";
import { tokensYaml } from "@llmgw/api/testing";
import { copyDashboard, tokensFromEnv } from "./childServer";
import { stopOnSignal } from "./seed";

const tokens = tokensFromEnv();
const dataDir = await mkdtemp(join(tmpdir(), "llmgw-e2e-autoscale-"));
const configFile = join(dataDir, "llmgw.yaml");
await writeFile(
  configFile,
  `${tokensYaml(tokens)}heartbeatSeconds: 1\nautoscale: { scaleDownSeconds: 4, drainSeconds: 30 }\n`,
);
// No environment: LLMGW_SCHEDULER=off, set for the shared server, must not reach this one.
const config = loadConfig({ config: configFile, dataDir, listen: "127.0.0.1:0" }, {});
const server = await startServer(config, { webDist: await copyDashboard(dataDir) });
stopOnSignal(server, dataDir);

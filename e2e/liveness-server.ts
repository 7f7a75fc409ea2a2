// A server whose nodes go down quickly, for the numbers-agree case with a down node
// (tests/numbers-agree.spec.ts), started by that spec as a child process: a 2 s heartbeat interval
// (a node silent for 3 intervals is down, services/liveness.ts, checked every second; 2 s rather
// than 1 so a live node beating every half second outlasts a loaded machine's stalls), the
// scheduler off so the replicas are the ones the test's beats report, its own port (printed on the
// "ready" line), store and copy of the dashboard, no tokens (loopback only).
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startServer } from "@llmgw/api";
import { copyDashboard } from "./childServer";
import { stopOnSignal } from "./seed";

const dataDir = await mkdtemp(join(tmpdir(), "llmgw-e2e-liveness-"));
const configFile = join(dataDir, "llmgw.yaml");
await writeFile(configFile, "heartbeatSeconds: 2\n");
// Only the scheduler's switch: the shared server's settings must not reach this one.
const config = loadConfig({ config: configFile, dataDir, listen: "127.0.0.1:0" }, { LLMGW_SCHEDULER: "off" });
const server = await startServer(config, { webDist: await copyDashboard(dataDir) });
stopOnSignal(server, dataDir);

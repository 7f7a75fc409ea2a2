// The two servers of the Hugging Face pull bench (hubPull.ts), each in its own process (forked with
// IPC by report.ts `child`) so each has a core and its CPU is counted apart:
//   hub BYTES         the stand-in Hub (@llmgw/api/testing's StandInHub) serving one GGUF of BYTES
//                     (a real header over a sparse tail) as bench/Big-GGUF, Q4_K_M, through its 302
//                     to a second origin, as the real Hub does
//   llmgw HUB_URL     `llmgw serve` itself (startServer: embedded store, mirror watch and hashing
//                     on), pulling from HUB_URL
// It answers IPC commands: usage (this process's CPU so far), stop (SIGTERM).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [mode, ...args] = process.argv.slice(2);
const dataDir = await mkdtemp(join(tmpdir(), `llmgw-bench-${mode}-`));
let answer: Record<string, unknown> = {};
let cleanup: () => Promise<void> = async () => {};

if (mode === "hub") {
  const { addGgufRepo, StandInHub } = await import("@llmgw/api/testing");
  const hub = await StandInHub.start();
  const { commit } = await addGgufRepo(hub, dataDir, {
    repo: "bench/Big-GGUF",
    quants: { Q4_K_M: Number(args[0]) },
  });
  answer = { url: hub.url, commit };
  cleanup = () => hub.close();
} else if (mode === "llmgw") {
  const api = await import("@llmgw/api");
  const config = api.loadConfig({ dataDir, listen: "127.0.0.1:0" }, { HF_ENDPOINT: args[0] ?? "" });
  const server = await api.startServer(config, { log: api.silentLogger() });
  answer = { url: server.url, mirror: config.mirror.dir };
  cleanup = () => server.close();
} else {
  throw new Error(`serveHubPull.ts: unknown mode ${mode}`);
}

process.on("message", (message: { cmd: string }) => {
  if (message.cmd !== "usage") return;
  const cpu = process.cpuUsage();
  process.send?.({ cpuMs: (cpu.user + cpu.system) / 1000 });
});
process.once(
  "SIGTERM",
  () =>
    void cleanup()
      .then(() => rm(dataDir, { recursive: true, force: true }))
      .finally(() => process.exit(0)),
);
process.send?.(answer);

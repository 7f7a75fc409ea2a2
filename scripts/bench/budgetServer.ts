// The server for the budget bench, in its own process (forked with IPC by report.ts `child`): the
// real `startServer` on PGlite in a fresh data directory, scheduler off, with one model whose one
// replica is the engine the parent runs. Tokens from llmgw.yaml: an admin, an agent, and the client
// the parent sends as, with a budget (`on`) or, in the baseline (`off`), without counting or budget.
//   budgetServer on|off ENGINE_URL
// Tells its parent its port and the client's secret; answers {cmd: "usage"} with its CPU time; on
// SIGTERM closes, removes what it made and exits.
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [mode = "on", engineUrl = ""] = process.argv.slice(2);
const counting = mode === "on";
const api = await import("@llmgw/api");

const secret = () => `llmgw_${randomBytes(32).toString("base64url")}`;
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const SECRET = { admin: secret(), agent: secret(), client: secret() };
const NODE = "bench-budget-node";
const MODEL = "bench-budgeted";

const dataDir = await mkdtemp(join(tmpdir(), "llmgw-bench-budget-"));
const file = join(dataDir, "llmgw.yaml");
// A budget no run reaches: every request is reserved, settled and leased, none refused.
const budget = counting ? ", tokensPerDay: 1000000000000" : "";
await writeFile(
  file,
  [
    "tokens:",
    `  - { name: ops, role: admin, sha256: ${sha(SECRET.admin)} }`,
    `  - { name: box, role: agent, node: ${NODE}, sha256: ${sha(SECRET.agent)} }`,
    `  - { name: app, role: client${budget}, sha256: ${sha(SECRET.client)} }`,
    "",
  ].join("\n"),
);
const config = api.loadConfig({ config: file, dataDir, listen: "127.0.0.1:0" }, { LLMGW_SCHEDULER: "off" });
const server = await api.startServer(config, {
  webDist: null,
  log: api.silentLogger(),
  countUsage: counting,
});

const post = async (path: string, token: string, body: unknown) => {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
};
await post("/api/v1/models", SECRET.admin, {
  name: MODEL,
  source: "https://example.invalid/budgeted.gguf",
  contextLength: 4096,
  scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 },
  profiles: [{ name: "cpu", engine: "llamacpp", minMemoryGB: 1, cpuCores: 1 }],
});
await post("/api/v1/agents/heartbeat", SECRET.agent, {
  node: { name: NODE, memoryGB: 64, cpuCount: 32, engines: ["llamacpp"] },
  replicas: [{ id: "bench-budget-1", model: MODEL, state: "ready", endpoint: engineUrl }],
});

process.on("message", (message: { cmd: string }) => {
  if (message.cmd !== "usage") return;
  const cpu = process.cpuUsage();
  process.send?.({ cpuMs: (cpu.user + cpu.system) / 1000 });
});
process.once("SIGTERM", () => {
  void server
    .close()
    .finally(() => rm(dataDir, { recursive: true, force: true }).finally(() => process.exit(0)));
});
process.send?.({ port: Number(new URL(server.url).port), secret: SECRET.client, model: MODEL });

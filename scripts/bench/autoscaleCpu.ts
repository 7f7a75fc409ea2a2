// The autoscaler's cost (SPEC §9), in its own process (forked by autoscale.ts): `openDeps` on an
// embedded store holding 2,000 autoscaled models ({min 1, max 4}) and 2,000 nodes, and the real
// autoscaler (`startAutoscaler`, the leader: it steps every window and stores what moves) fed a
// demand on 500 of them that changes every second, as a busy gateway's would (the gateway's own
// cost is the gateway benches'). CPU from process.cpuUsage() over WINDOW_S seconds, three times,
// less the same process idle over the same time before the autoscaler started.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Control, type GatewayDemand, loadConfig, openDeps, startAutoscaler } from "@llmgw/api";
import { bigFleetBeat, bigFleetModel, seedNodes } from "@llmgw/api/testing";
import { modelInputSchema } from "@llmgw/domain";
import { median, type Row } from "./report";

const MODELS = 2_000;
const BUSY = 500;
const NODES = 2_000;
const WINDOW_S = Number(process.env.BENCH_AUTOSCALE_CPU_SECONDS ?? 10);

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Share of one core spent over `seconds` of wall time. */
async function share(seconds: number): Promise<number> {
  const cpu = cpuMs();
  const wall = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return (cpuMs() - cpu) / (performance.now() - wall);
}

const dataDir = await mkdtemp(join(tmpdir(), "llmgw-bench-autoscale-"));
const config = loadConfig({ dataDir, listen: "127.0.0.1:0" }, {});
const deps = await openDeps(config, { inMemory: true });
const at = new Date().toISOString();
await deps.store.transaction(async (tx) => {
  for (let i = 0; i < MODELS; i++) {
    const input = modelInputSchema.parse({ ...bigFleetModel(i), scaling: { min: 1, max: 4 } });
    await tx.models.insert({ ...input, origin: "runtime", version: 1, updatedAt: at, updatedBy: "seed" });
  }
});
deps.world.invalidate();
await seedNodes(
  deps,
  Array.from({ length: NODES }, (_, n) => bigFleetBeat(n, { models: MODELS })),
);
await deps.world.snapshot();

let second = 0;
/** 500 models with requests in flight and queued, moving every second; a replica each with some. */
const demand = (): GatewayDemand => {
  second++;
  const models: GatewayDemand["models"] = new Map();
  const replicas: GatewayDemand["replicas"] = new Map();
  for (let i = 0; i < BUSY; i++) {
    const inFlight = (i * 7 + second * 3) % 12;
    models.set(`model-${i}`, { inFlight, queued: (i + second) % 5 });
    if (inFlight > 0) replicas.set(`node-${i}-0`, inFlight);
  }
  return { models, replicas };
};

const idle: number[] = [];
for (let i = 0; i < 3; i++) idle.push(await share(WINDOW_S));
const autoscaler = await startAutoscaler(deps, new Control(deps), { demand });
await share(5); // the first seconds: every model's window starts and its wanted is stored
const busy: number[] = [];
for (let i = 0; i < 3; i++) busy.push(await share(WINDOW_S));
await autoscaler.stop();

const base = median(idle);
const runs = busy.map((b) => (b - base) * 100);
const pct = (x: number) => `${x.toFixed(2)}%`;
const rows: Row[] = [
  {
    measure: `autoscaler CPU, ${MODELS.toLocaleString("en")} autoscaled models (${NODES.toLocaleString("en")} nodes), demand moving every second on ${BUSY}; ${runs.length} windows of ${WINDOW_S} s`,
    value: `${pct(median(runs))} of a core median (min ${pct(Math.min(...runs))}, max ${pct(Math.max(...runs))})`,
    peer: `the same process idle: ${pct(base * 100)}`,
    aim: "≤ 5% of a core",
    met: median(runs) <= 5,
  },
];
await deps.store.close();
await rm(dataDir, { recursive: true, force: true });
process.send?.({ rows });
process.once("SIGTERM", () => process.exit(0));

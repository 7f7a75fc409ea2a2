// `pnpm bench`: times the rules that run on every change over a large, seeded fleet. Add a
// benchmark by appending to `benches`; each is warmed up, then reports the median wall and CPU
// time of its runs and the fastest run (the best guide on a busy machine).
import { cpus, loadavg } from "node:os";
import {
  type Class,
  DEFAULT_CLASSES,
  type FleetIndex,
  headroom,
  headroomAll,
  indexFleet,
  type Model,
  type Node,
  type Quota,
  type Replica,
  reindexNode,
} from "../packages/domain/src/index";

const FLEET = { nodes: 5_000, replicas: 100_000, models: 2_000, owners: 40 };

interface Bench {
  name: string;
  /** Timed runs; each is one call of `run`. */
  runs: number;
  warmup: number;
  run: (i: number) => void;
}

/** Where results go, so no run's work can be optimised away. */
let kept: unknown;
function keep(value: unknown): void {
  kept = value;
}

/** mulberry32: small, fast and the same sequence on every machine for a seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generateFleet(seed: number) {
  const rand = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const classes: Class[] = DEFAULT_CLASSES.map((c) => ({ ...c }));
  const at = Date.UTC(2025, 0, 1);

  const nodes: Node[] = [];
  for (let i = 0; i < FLEET.nodes; i++) {
    const gpu = rand() < 0.25;
    const reports = rand() < 0.85;
    const roll = rand();
    nodes.push({
      name: `node-${String(i).padStart(5, "0")}`,
      state: roll < 0.02 ? "down" : roll < 0.05 ? "draining" : "ready",
      memoryGB: rand() < 0.01 ? 0 : pick(gpu ? [512, 768, 1024] : [192, 256, 384, 512]),
      cpuCount: rand() < 0.01 ? 0 : pick(gpu ? [96, 128, 192] : [64, 96, 128, 192]),
      gpuTotal: gpu ? pick([4, 8]) : 0,
      gpuMemoryGB: gpu ? 80 : 0,
      engines: reports ? (gpu ? ["vllm", "llamacpp"] : ["llamacpp"]) : [],
      labels: {
        zone: `z${1 + Math.floor(rand() * 4)}`,
        ...(gpu ? { gpu: pick(["a100", "h100", "l40s"]) } : {}),
      },
      freeMemoryGB: null,
      lastSeen: new Date(at).toISOString(),
      agentVersion: "bench",
    });
  }

  const owners = Array.from({ length: FLEET.owners }, (_, i) => `team-${i}`);
  const models: Model[] = [];
  for (let i = 0; i < FLEET.models; i++) {
    const vllm = rand() < 0.2;
    const selector: Record<string, string> = vllm
      ? rand() < 0.5
        ? { gpu: pick(["a100", "h100"]) }
        : {}
      : rand() < 0.1
        ? { zone: pick(["z1", "z2", "z3", "z4"]) }
        : {};
    const roll = rand();
    models.push({
      name: `model-${i}`,
      description: "",
      source: `http://mirror/model-${i}/`,
      aliases: [],
      contextLength: 8192,
      maxOutput: null,
      routingProfile: "chat",
      class: roll < 0.15 ? "critical" : roll < 0.7 ? "standard" : "batch",
      owner: rand() < 0.1 ? "" : pick(owners),
      scaling: { min: 1, max: 4, idleTimeoutSeconds: 900 },
      profiles: [
        {
          name: vllm ? "gpu" : "cpu",
          engine: vllm ? "vllm" : "llamacpp",
          weight: 1,
          priority: 100,
          args: [],
          // Memory estimates land on whole GB across a wide range, as the wizard's do.
          minMemoryGB: vllm ? pick([24, 32, 48, 64, 96, 128]) : 2 + Math.floor(rand() * rand() * 48),
          cpuCores: vllm ? pick([4, 8, 16]) : pick([1, 2, 2, 4, 4, 8]),
          gpus: vllm ? pick([1, 1, 2, 4]) : 0,
          nodeSelector: selector,
        },
      ],
      origin: "runtime",
      version: 1,
      updatedAt: new Date(at).toISOString(),
      updatedBy: "bench",
    });
  }

  // Replicas go where they fit (a few tries), else stay pending; a few are unmanaged or failed.
  const used = nodes.map(() => ({ memory: 0, cores: 0, gpus: 0 }));
  const replicas: Replica[] = [];
  for (let i = 0; i < FLEET.replicas; i++) {
    const unmanaged = rand() < 0.02;
    const model = pick(models);
    const profile = model.profiles[0];
    const need = unmanaged
      ? { memory: 8, cores: 4, gpus: 0 }
      : { memory: profile?.minMemoryGB ?? 0, cores: profile?.cpuCores ?? 0, gpus: profile?.gpus ?? 0 };
    let node: number | null = null;
    for (let attempt = 0; attempt < 12 && node === null; attempt++) {
      const n = Math.floor(rand() * nodes.length);
      const facts = nodes[n];
      const u = used[n];
      if (!facts || !u) continue;
      if (
        u.memory + need.memory <= facts.memoryGB &&
        u.cores + need.cores <= facts.cpuCount &&
        u.gpus + need.gpus <= facts.gpuTotal
      ) {
        node = n;
        u.memory += need.memory;
        u.cores += need.cores;
        u.gpus += need.gpus;
      }
    }
    const roll = rand();
    replicas.push({
      id: `r-${i}`,
      model: unmanaged ? `someone-elses-${i % 50}` : model.name,
      profile: profile?.name ?? "cpu",
      node: node === null ? null : (nodes[node]?.name ?? null),
      state: node === null ? "pending" : roll < 0.02 ? "failed" : roll < 0.07 ? "starting" : "ready",
      memoryGB: need.memory,
      cpuCores: need.cores,
      gpus: need.gpus,
      measuredMemoryGB: null,
      startedAt: new Date(at + Math.floor(rand() * 86_400_000)).toISOString(),
      reason: null,
    });
  }

  const quotas: Quota[] = owners
    .filter((_, i) => i % 2 === 0)
    .map((owner, i) => ({
      owner,
      memoryGB: i % 3 === 0 ? null : 20_000,
      cpuCores: 8_000,
      gpus: i % 4 === 0 ? 64 : null,
      replicas: i % 5 === 0 ? 3_000 : null,
    }));
  return { nodes, models, replicas, classes, quotas };
}

const fleet = generateFleet(20250101);
let index: FleetIndex = indexFleet(fleet);
const onNode = new Map<string, Replica[]>();
for (const r of fleet.replicas) {
  if (r.node === null) continue;
  const list = onNode.get(r.node) ?? [];
  list.push(r);
  onNode.set(r.node, list);
}

const benches: Bench[] = [
  {
    // How fast this machine is right now: compare figures across machines by this row.
    name: "calibration (10M-step loop)",
    runs: 7,
    warmup: 2,
    run: () => {
      let sum = 0;
      for (let i = 0; i < 10_000_000; i++) sum += i % 7;
      keep(sum);
    },
  },
  {
    name: "indexFleet",
    runs: 15,
    warmup: 3,
    run: () => {
      index = indexFleet(fleet);
    },
  },
  {
    name: "headroomAll (counts)",
    runs: 15,
    warmup: 3,
    run: () => {
      keep(headroomAll(fleet.models, index, fleet.quotas));
    },
  },
  {
    name: "indexFleet + headroomAll",
    runs: 15,
    warmup: 3,
    run: () => {
      index = indexFleet(fleet);
      keep(headroomAll(fleet.models, index, fleet.quotas));
    },
  },
  {
    // What the capacity cards add: which classes each model would preempt.
    name: "headroomAll + every victimsByClass",
    runs: 7,
    warmup: 2,
    run: () => {
      keep(headroomAll(fleet.models, index, fleet.quotas).map((room) => room.victimsByClass));
    },
  },
  {
    // Every model's line for every node: 10 million lines, for scale only (no caller wants this).
    name: "headroomAll + every nodes list",
    runs: 3,
    warmup: 1,
    run: () => {
      keep(headroomAll(fleet.models, index, fleet.quotas).map((room) => room.nodes));
    },
  },
  {
    name: "headroom, one model, all fields",
    runs: 200,
    warmup: 20,
    run: (i) => {
      const model = fleet.models[(i * 7919) % fleet.models.length];
      if (!model) return;
      const room = headroom(model, index, fleet.quotas);
      keep([room.nodes, room.victimsByClass]);
    },
  },
  {
    // A heartbeat: one node's facts and replicas again, one replica having changed state.
    name: "reindexNode (one heartbeat)",
    runs: 1_000,
    warmup: 100,
    run: (i) => {
      const node = fleet.nodes[(i * 104_729) % fleet.nodes.length];
      if (!node) return;
      const replicas = (onNode.get(node.name) ?? []).map((r, j) =>
        j === 0 ? { ...r, state: r.state === "ready" ? ("starting" as const) : ("ready" as const) } : r,
      );
      index = reindexNode(index, node, replicas);
    },
  },
];

function round(ms: number): string {
  return ms < 10 ? ms.toFixed(3) : ms.toFixed(1);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Wall time, and CPU time of this process: on a busy machine the second says more about the code. */
function measure(bench: Bench): { wall: number; cpu: number; min: number } {
  for (let i = 0; i < bench.warmup; i++) bench.run(i);
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < bench.runs; i++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    bench.run(bench.warmup + i);
    walls.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
  }
  return { wall: median(walls), cpu: median(cpus), min: Math.min(...walls) };
}

const shapes = new Set(
  fleet.models.map((m) => {
    const p = m.profiles[0];
    return JSON.stringify([p?.minMemoryGB, p?.cpuCores, p?.gpus, m.class, p?.engine, p?.nodeSelector]);
  }),
);
const placed = fleet.replicas.filter((r) => r.node !== null).length;
console.log(
  `fleet: ${fleet.nodes.length} nodes, ${fleet.replicas.length} replicas (${placed} placed), ` +
    `${fleet.models.length} models in ${shapes.size} distinct shapes`,
);
console.log(
  `machine: ${cpus()[0]?.model ?? "unknown"} × ${cpus().length}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}, node ${process.version}`,
);
const rows = benches.map((bench) => {
  const { wall, cpu, min } = measure(bench);
  return {
    bench: bench.name,
    "median ms": round(wall),
    "median CPU ms": round(cpu),
    "fastest ms": round(min),
    runs: bench.runs,
  };
});
console.table(rows);
if (kept === undefined) console.log("nothing was kept");

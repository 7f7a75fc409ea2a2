// The seeded fleet the domain's benches run on: the same nodes, models and replicas on every
// machine for a seed, shaped like a large deployment (a quarter GPU nodes, most replicas placed).
import { type Class, DEFAULT_CLASSES, type Model, type Node, type Quota, type Replica } from "@llmgw/domain";

const FLEET = { nodes: 5_000, replicas: 100_000, models: 2_000, owners: 40 };

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

export function generateFleet(seed: number) {
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
      endpoint: null,
      progress: null,
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

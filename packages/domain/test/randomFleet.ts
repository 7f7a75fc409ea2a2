import fc from "fast-check";
import { DEFAULT_CLASSES } from "../src/classes";
import type { Class, Model, Node, Quota, Replica } from "../src/schemas";
import { makeModel, makeNode, makeProfile, makeReplica } from "./factories";

// Random fleets for property tests: mixed classes (one the configuration does not know),
// selectors, engines, node states (draining and down among them), quotas, pending and unmanaged
// replicas in every state.

export const classes: Class[] = DEFAULT_CLASSES.map((c) => ({ ...c }));
const OWNERS = ["", "a", "b"] as const;

const nodeArb = fc.record({
  memoryGB: fc.constantFrom(0, 8, 15.5, 24, 32, 32, 48, 48, 64),
  cpuCount: fc.constantFrom(0, 2, 4, 8, 16, 16, 32, 32, 32),
  gpuTotal: fc.constantFrom(0, 0, 1, 2, 4, 8),
  engines: fc.constantFrom(
    [],
    ["llamacpp"],
    ["vllm"],
    ["llamacpp", "vllm"],
    ["llamacpp", "vllm"],
    ["llamacpp", "vllm"],
  ),
  labels: fc.record(
    { gpu: fc.constantFrom("a100", "t4"), zone: fc.constantFrom("a", "b") },
    { requiredKeys: [] },
  ),
  state: fc.constantFrom("ready", "ready", "ready", "ready", "ready", "ready", "ready", "draining", "down"),
});

const modelArb = fc.record({
  class: fc.constantFrom("critical", "critical", "standard", "standard", "batch", "experimental"),
  owner: fc.constantFrom(...OWNERS),
  minMemoryGB: fc.constantFrom(0, 1, 2, 4, 8, 16, 24),
  cpuCores: fc.constantFrom(0, 1, 2, 4),
  gpus: fc.constantFrom(0, 0, 0, 1, 2),
  engine: fc.constantFrom("llamacpp", "vllm"),
  nodeSelector: fc.constantFrom({}, {}, {}, {}, { gpu: "a100" }, { zone: "a" }),
});

export const replicaArb = fc.record({
  // A catalogue model's index (when that many exist) mostly; 6 and 7 are unmanaged.
  model: fc.oneof({ arbitrary: fc.nat(5), weight: 6 }, { arbitrary: fc.constantFrom(6, 7), weight: 1 }),
  state: fc.constantFrom("pending", "starting", "ready", "ready", "ready", "stopping", "failed"),
  memoryGB: fc.constantFrom(0, 2, 4, 8, 8, 16, 16, 24),
  cpuCores: fc.constantFrom(0, 1, 2, 4),
  gpus: fc.constantFrom(0, 0, 1),
  startedAt: fc.nat(50),
});

const limitArb = (max: number) => fc.option(fc.nat(max), { nil: null });
const quotaArb = fc.record({
  memoryGB: limitArb(256),
  cpuCores: limitArb(64),
  gpus: limitArb(8),
  replicas: limitArb(16),
});

export const fleetArb = fc
  .record({
    // Replicas come per node, so nodes are often full and preemption has something to do.
    nodes: fc.array(fc.record({ facts: nodeArb, replicas: fc.array(replicaArb, { maxLength: 6 }) }), {
      maxLength: 8,
    }),
    models: fc.array(modelArb, { minLength: 1, maxLength: 6 }),
    pending: fc.array(replicaArb, { maxLength: 4 }),
    quotas: fc.record({ a: fc.option(quotaArb), b: fc.option(quotaArb) }),
  })
  .map(build);

/** What an arbitrary draws. */
type Drawn<A> = A extends fc.Arbitrary<infer T> ? T : never;

export function build(raw: {
  nodes: { facts: Drawn<typeof nodeArb>; replicas: Drawn<typeof replicaArb>[] }[];
  models: Drawn<typeof modelArb>[];
  pending: Drawn<typeof replicaArb>[];
  quotas: { a: Drawn<typeof quotaArb> | null; b: Drawn<typeof quotaArb> | null };
}) {
  const nodes: Node[] = raw.nodes.map(({ facts }, i) =>
    makeNode({ ...facts, name: `n${i}`, engines: [...facts.engines], labels: definedOnly(facts.labels) }),
  );
  const models: Model[] = raw.models.map((m, i) =>
    makeModel({
      name: `m${i}`,
      class: m.class,
      owner: m.owner,
      profiles: [makeProfile({ ...m, name: "p", nodeSelector: definedOnly(m.nodeSelector) })],
    }),
  );
  const placed = [
    ...raw.nodes.flatMap((n, i) => n.replicas.map((r) => ({ ...r, node: `n${i}` as string | null }))),
    ...raw.pending.map((r) => ({ ...r, state: "pending" as const, node: null })),
  ];
  const replicas: Replica[] = placed.map((r, i) =>
    makeReplica({
      id: `r${i}`,
      model: r.model < models.length ? `m${r.model}` : `ghost${r.model}`,
      node: r.node,
      state: r.state,
      memoryGB: r.memoryGB,
      cpuCores: r.cpuCores,
      gpus: r.gpus,
      startedAt: new Date(Date.UTC(2025, 0, 1, 0, r.startedAt)).toISOString(),
    }),
  );
  const quotas: Quota[] = [];
  if (raw.quotas.a) quotas.push({ owner: "a", ...raw.quotas.a });
  if (raw.quotas.b) quotas.push({ owner: "b", ...raw.quotas.b });
  return { nodes, models, replicas, quotas };
}

function definedOnly(record: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter((e): e is [string, string] => e[1] !== undefined));
}

export type Fleet = ReturnType<typeof build>;

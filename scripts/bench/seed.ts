/**
 * Catalogue entry i of the benches' generated catalogues: mixed classes, owners and sizes, one
 * replica each, so a scheduler has something to place.
 */
export function seedModel(i: number) {
  return {
    name: `model-${i}`,
    source: `http://127.0.0.1/mirror/model-${i}/v1/model-${i}.gguf`,
    contextLength: 8192,
    class: ["critical", "standard", "batch"][i % 3],
    owner: `team-${i % 10}`,
    scaling: { min: 1, max: 1 },
    profiles: [{ name: "cpu", engine: "llamacpp", minMemoryGB: 2 + (i % 30), cpuCores: 1 + (i % 4) }],
  };
}

/**
 * Node n's heartbeat as serve.ts's `app` mode writes its seeded nodes straight to the store (the
 * fleet the first-heartbeat bench adds to).
 */
export function beatOf(n: number, replicas = 2) {
  return {
    node: { name: `beat-${n}`, memoryGB: 256, cpuCount: 64, engines: ["llamacpp"], freeMemoryGB: 100 },
    replicas: Array.from({ length: replicas }, (_, j) => ({
      id: `beat-${n}-${j}`,
      model: `model-${(n + j * 250) % 500}`,
      state: "ready" as const,
    })),
  };
}

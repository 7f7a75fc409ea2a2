import { bigFleetModel } from "@llmgw/api/testing";

/**
 * Catalogue entry i of the benches' generated catalogues: mixed classes, owners and sizes, one
 * replica each, so a scheduler has something to place.
 */
export const seedModel = bigFleetModel;

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

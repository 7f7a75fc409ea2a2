import { bigFleetModel } from "../../apps/api/src/testing/bigFleet";

/**
 * Catalogue entry i of the benches' generated catalogues: mixed classes, owners and sizes, one
 * replica each, so a scheduler has something to place.
 */
export const seedModel = bigFleetModel;

/**
 * Node n's heartbeat in the heartbeat bench: serve.ts seeds its store with these and beats.ts
 * sends them again, so every measured beat is unchanged.
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

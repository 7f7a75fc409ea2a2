import { rm } from "node:fs/promises";
import { connect } from "@llmgw/client";
import type { Heartbeat, ModelInput } from "@llmgw/domain";

export const seedModelInputs: ModelInput[] = [
  {
    name: "chat-critical",
    source: "http://127.0.0.1/mirror/a/b/a.gguf",
    contextLength: 8192,
    class: "critical",
    owner: "platform",
    scaling: { min: 1, max: 1 },
    profiles: [{ name: "cpu", engine: "llamacpp", minMemoryGB: 8, cpuCores: 4 }],
  },
  {
    name: "qwen-standard",
    source: "http://127.0.0.1/mirror/a/b/b.gguf",
    contextLength: 16384,
    owner: "research",
    scaling: { min: 2, max: 2 },
    profiles: [{ name: "cpu", engine: "llamacpp", minMemoryGB: 16, cpuCores: 4 }],
  },
  {
    name: "batch-job",
    source: "http://127.0.0.1/mirror/a/b/c.gguf",
    contextLength: 4096,
    class: "batch",
    owner: "research",
    scaling: { min: 2, max: 2 },
    profiles: [{ name: "cpu", engine: "llamacpp", minMemoryGB: 16, cpuCores: 4 }],
  },
];

export async function seedModels(base: string): Promise<void> {
  const { api, answer } = connect({ server: base });
  for (const model of seedModelInputs) await answer(api.models.$post({ json: model }));
}

/** Two CPU nodes: one running the batch job (so the critical model can preempt it), one empty. */
const seedBeats: Heartbeat[] = [
  {
    node: { name: "node-a", memoryGB: 64, cpuCount: 16, engines: ["llamacpp"] },
    replicas: [
      { id: "batch-job-1", model: "batch-job", state: "ready" },
      { id: "batch-job-2", model: "batch-job", state: "ready" },
      { id: "qwen-standard-1", model: "qwen-standard", state: "ready" },
    ],
  },
  {
    node: { name: "node-b", memoryGB: 32, cpuCount: 8, engines: ["llamacpp"] },
    replicas: [{ id: "chat-critical-1", model: "chat-critical", state: "ready" }],
  },
];

/** The fleet, reported through the real heartbeat endpoint as its agents would. */
export async function seedFleet(base: string): Promise<void> {
  const { api, answer } = connect({ server: base });
  for (const beat of seedBeats) await answer(api.agents.heartbeat.$post({ json: beat }));
}

/**
 * Playwright stops a test server with SIGTERM (gracefulShutdown in playwright.config.ts): close it
 * and remove its data directory, or the store and the sparse multi-GB mirror files pile up in the
 * temp directory run after run.
 */
export function stopOnSignal(
  server: { close(): Promise<void> },
  dataDir: string,
  drop: () => Promise<void> = async () => {},
): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(
      signal,
      () =>
        void server
          .close()
          .then(() => rm(dataDir, { recursive: true, force: true }))
          .then(drop)
          .finally(() => process.exit(0)),
    );
  }
}

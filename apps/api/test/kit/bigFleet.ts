import { answer, connect } from "@llmgw/client";
import { type Heartbeat, heartbeatSchema, mergeReport, modelInputSchema } from "@llmgw/domain";
import type { Deps } from "../../src/deps";

/**
 * Model i of a generated catalogue: mixed classes, owners and sizes, one replica wanted each.
 * `model-0` … `model-N`, so a browser test can search for one.
 */
export function bigFleetModel(i: number) {
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

/** Node n's heartbeat: 256 GB, 64 cores, running `replicas` of the catalogue's `models`. */
export function bigFleetBeat(
  n: number,
  { models, replicas = 2 }: { models: number; replicas?: number },
): Heartbeat {
  return {
    node: { name: `node-${n}`, memoryGB: 256, cpuCount: 64, engines: ["llamacpp"], freeMemoryGB: 100 },
    replicas: Array.from({ length: replicas }, (_, j) => ({
      id: `node-${n}-${j}`,
      model: `model-${(n + j * 250) % models}`,
      state: "ready" as const,
    })),
  };
}

/**
 * A catalogue of `models` and a fleet of `nodes` for the benches and the browser tests at scale,
 * written straight to the store, each in one transaction, as creates and first beats would write
 * them (without their audit entries and events): through the API each one rebuilds the world
 * snapshot, and thousands take minutes. Later beats through the API find the nodes as if they
 * had reported.
 */
export async function seedBigFleet(
  deps: Deps,
  { models, nodes, replicasPerNode = 2 }: { models: number; nodes: number; replicasPerNode?: number },
): Promise<void> {
  const at = new Date().toISOString();
  await deps.store.transaction(async (tx) => {
    for (let i = 0; i < models; i++) {
      const input = modelInputSchema.parse(bigFleetModel(i));
      await tx.models.insert({ ...input, origin: "runtime", version: 1, updatedAt: at, updatedBy: "seed" });
    }
  });
  deps.world.invalidate();
  await seedNodes(
    deps,
    Array.from({ length: nodes }, (_, n) => bigFleetBeat(n, { models, replicas: replicasPerNode })),
  );
}

/** Nodes and their replicas written straight to the store, as their first heartbeats would. */
export async function seedNodes(deps: Deps, beats: readonly Heartbeat[]): Promise<void> {
  const snap = await deps.world.snapshot();
  const now = new Date().toISOString();
  const parsed = beats.map((beat) => heartbeatSchema.parse(beat));
  const lists = parsed.map(({ node: facts, replicas }) => ({
    node: facts.name,
    replicas: mergeReport({
      node: facts.name,
      reported: replicas,
      stored: [],
      models: snap.modelsByName,
      now,
      scheduled: false,
      graceMs: 0,
    }),
  }));
  // In the statements a batch of heartbeats commits together (nodes.upsertAll, replaceForNodes):
  // thousands of nodes one by one are tens of thousands of round trips to PGlite.
  await deps.store.transaction(async (tx) => {
    await tx.nodes.upsertAll(parsed.map(({ node: facts }) => ({ ...facts, state: "ready", lastSeen: now })));
    await tx.replicas.replaceForNodes(lists);
  });
  deps.world.invalidate();
  // Seen now, not when the seeding began: liveness would mark them all down.
  const seen = new Date().toISOString();
  for (const beat of beats) deps.world.lastSeen.set(beat.node.name, seen);
}

/** An agent beating every second (`beatEverySecond`): how many of its beats went through so far. */
export type Beating = { readonly beats: number; readonly failed: number; stop(): Promise<void> };

/**
 * Node `node`'s agent (of a fleet `seedBigFleet` wrote) beating every second through the API at
 * `server`, its free memory swinging between two readings, as a busy node's would: a
 * `node.changed` a beat. With `churn`, every other beat also reports a third replica, so each
 * beat adds or removes one (a `replica.changed`, and the node's bar moves). A beat the loaded
 * server drops is counted, not fatal: the next one makes it up.
 */
export function beatEverySecond(
  server: string,
  { models, node = 0, churn = false }: { models: number; node?: number; churn?: boolean },
): Beating {
  const { api } = connect({ server });
  const beat = (n: number) => bigFleetBeat(node, { models, replicas: churn && n % 2 === 1 ? 3 : 2 });
  let n = 0;
  let beats = 0;
  let failed = 0;
  let last: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    n += 1;
    const sent = beat(n);
    const freeMemoryGB = n % 2 === 0 ? 100 : 60;
    last = answer(
      api.agents.heartbeat.$post({ json: { ...sent, node: { ...sent.node, freeMemoryGB } } }),
    ).then(
      () => {
        beats += 1;
      },
      () => {
        failed += 1;
      },
    );
  }, 1000);
  return {
    get beats() {
      return beats;
    },
    get failed() {
      return failed;
    },
    async stop() {
      clearInterval(timer);
      await last;
    },
  };
}

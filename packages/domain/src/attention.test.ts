import { describe, expect, it } from "vitest";
import { makeModel, makeQuota, replicaOf } from "../test/factories";
import { modelAttention, nodeAttention, overQuotaOf, quotaAttention } from "./attention";
import { modeOf } from "./runModes";
import type { ModelSummary, Replica } from "./schemas";

function summary(overrides: {
  min?: number;
  max?: number;
  replicas?: Replica[];
  current?: number;
  elsewhere?: number;
}) {
  const model = makeModel({
    scaling: { min: overrides.min ?? 1, max: overrides.max ?? 1, idleTimeoutSeconds: 900 },
  });
  const view: ModelSummary = {
    ...model,
    mode: modeOf(model.scaling),
    revision: 1,
    rollout: null,
    replicas: overrides.replicas ?? [],
    headroom: {
      model: model.name,
      need: { memoryGB: 6, cpuCores: 2, gpus: 0 },
      current: overrides.current ?? 0,
      starting: 0,
      elsewhere: overrides.elsewhere ?? 0,
      free: 0,
      byPreemption: 0,
      quotaRemaining: null,
      total: 0,
      limitedBy: "capacity",
      victimsByClass: {},
      whyNot: [],
    },
    quota: { owner: model.owner, remaining: null },
    autoscale: null,
  };
  return view;
}

describe("modelAttention", () => {
  it("is empty for a model running all it wants", () => {
    expect(modelAttention(summary({ current: 1 }), undefined)).toEqual([]);
  });

  it("marks an always-on model short of wanted, but not an idle on-demand one", () => {
    expect(modelAttention(summary({ min: 2, max: 2, current: 1 }), undefined)).toEqual([
      { kind: "short", text: "1 replica short of wanted" },
    ]);
    expect(modelAttention(summary({ min: 0, max: 1 }), undefined)).toEqual([]);
  });

  it("names failed and waiting replicas with the first one's reason, and replicas on down nodes", () => {
    const model = makeModel();
    const replicas = [
      replicaOf(model, { state: "failed", reason: "checksum mismatch for model.gguf" }),
      replicaOf(model, { state: "pending", node: null, reason: "needs 24 GB, has 16 GB free of 64" }),
      replicaOf(model, { state: "pending", node: null, reason: null }),
    ];
    expect(modelAttention(summary({ current: 1, replicas, elsewhere: 1 }), undefined)).toEqual([
      { kind: "failed", text: "1 replica failed: checksum mismatch for model.gguf" },
      { kind: "waiting", text: "2 replicas waiting to be placed: needs 24 GB, has 16 GB free of 64" },
      { kind: "elsewhere", text: "1 replica on a draining or down node" },
    ]);
  });

  it("marks measured memory more than 10% above the estimate, and not within it", () => {
    const model = makeModel();
    const measuring = (gb: number) => [replicaOf(model, { state: "ready", measuredMemoryGB: gb })];
    expect(modelAttention(summary({ current: 1, replicas: measuring(6.7) }), undefined)).toEqual([
      { kind: "over-estimate", text: "measured 6.7 GB, above the 6 GB estimate" },
    ]);
    for (const within of [6.6, 6.4, 6, 2])
      expect(
        modelAttention(summary({ current: 1, replicas: measuring(within) }), undefined),
        `${within}`,
      ).toEqual([]);
  });
});

describe("quotaAttention and nodeAttention", () => {
  it("says which of an owner's limits are passed", () => {
    const quota = {
      ...makeQuota({ owner: "research", memoryGB: 64, replicas: 4 }),
      used: { memoryGB: 80, cpuCores: 8, gpus: 0, replicas: 4 },
    };
    expect(quotaAttention(quota)).toEqual([
      { kind: "over-quota", text: "research is over its quota: memory GB 80 of 64" },
    ]);
  });

  it("marks a model whose owner is over its quota, with the owner's sentence", () => {
    const over = {
      ...makeQuota({ owner: "research", replicas: 1 }),
      used: { memoryGB: 8, cpuCores: 2, gpus: 0, replicas: 2 },
    };
    const within = {
      ...makeQuota({ owner: "ops", replicas: 4 }),
      used: { memoryGB: 8, cpuCores: 2, gpus: 0, replicas: 2 },
    };
    const overQuota = overQuotaOf([over, within]);
    expect([...overQuota]).toEqual([["research", "research is over its quota: replicas 2 of 1"]]);
    const model = summary({ current: 1 });
    expect(modelAttention(model, overQuota.get("research"))).toEqual([
      { kind: "over-quota", text: "research is over its quota: replicas 2 of 1" },
    ]);
    expect(modelAttention(model, overQuota.get("ops"))).toEqual([]);
  });

  it("marks down and draining nodes", () => {
    expect(nodeAttention({ name: "n1", state: "down" })).toEqual([{ kind: "node-down", text: "n1 is down" }]);
    expect(nodeAttention({ name: "n1", state: "draining" })[0]?.kind).toBe("node-draining");
    expect(nodeAttention({ name: "n1", state: "ready" })).toEqual([]);
  });
});

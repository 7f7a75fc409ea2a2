import { describe, expect, it } from "vitest";
import { makeModel, makeProfile, makeQuota, makeReplica } from "../test/factories";
import { admitQuota, emptyUsage, quotaCommitment, quotaIncrease, quotaRemaining } from "./quota";

describe("admitQuota", () => {
  const usage = { memoryGB: 250, cpuCores: 60, gpus: 8, replicas: 20 };

  it("admits what stays within every limit", () => {
    const quota = makeQuota({ owner: "research", memoryGB: 256, cpuCores: 64 });
    const increase = { memoryGB: 6, cpuCores: 4, gpus: 0, replicas: 1 };
    expect(admitQuota({ owner: "research", quota, usage, increase })).toBeNull();
  });

  it("admits anything for an owner with no quota", () => {
    const increase = { memoryGB: 9999, cpuCores: 0, gpus: 0, replicas: 1 };
    expect(admitQuota({ owner: "research", quota: null, usage, increase })).toBeNull();
  });

  it("refuses memory past the limit, naming owner, dimension, used, asked and limit", () => {
    const quota = makeQuota({ owner: "research", memoryGB: 256 });
    const increase = { memoryGB: 50, cpuCores: 0, gpus: 0, replicas: 1 };
    expect(admitQuota({ owner: "research", quota, usage, increase })).toEqual({
      owner: "research",
      dimension: "memoryGB",
      used: 250,
      asked: 50,
      limit: 256,
      message: "owner research would use 300 GB of memory, over its limit of 256 (uses 250, asks 50)",
    });
  });

  it("words each dimension", () => {
    const refused = (quota: Parameters<typeof makeQuota>[0], increase: Partial<typeof usage>) =>
      admitQuota({ owner: "ml", quota: makeQuota(quota), usage, increase: { ...emptyUsage(), ...increase } })
        ?.message;
    expect(refused({ owner: "ml", cpuCores: 64 }, { cpuCores: 10 })).toBe(
      "owner ml would use 70 cores, over its limit of 64 (uses 60, asks 10)",
    );
    expect(refused({ owner: "ml", gpus: 8 }, { gpus: 1 })).toBe(
      "owner ml would use 9 GPUs, over its limit of 8 (uses 8, asks 1)",
    );
    expect(refused({ owner: "ml", replicas: 20 }, { replicas: 1 })).toBe(
      "owner ml would run 21 replicas, over its limit of 20 (uses 20, asks 1)",
    );
  });

  it("names unowned models as such", () => {
    const quota = makeQuota({ owner: "", replicas: 1 });
    const refusal = admitQuota({ owner: "", quota, usage, increase: { ...emptyUsage(), replicas: 1 } });
    expect(refusal?.message).toBe(
      "unowned models would run 21 replicas, over its limit of 1 (uses 20, asks 1)",
    );
  });

  it("charges only the increase: an owner already over a lowered limit may still shrink", () => {
    const quota = makeQuota({ owner: "research", memoryGB: 100 });
    const increase = { memoryGB: 0, cpuCores: 4, gpus: 0, replicas: 0 };
    expect(admitQuota({ owner: "research", quota, usage, increase })).toBeNull();
  });

  it("reaching the limit exactly is allowed", () => {
    const quota = makeQuota({ owner: "research", memoryGB: 256 });
    expect(
      admitQuota({ owner: "research", quota, usage, increase: { ...emptyUsage(), memoryGB: 6 } }),
    ).toBeNull();
  });
});

describe("quotaIncrease", () => {
  const need = (minMemoryGB: number, cpuCores: number, gpus = 0) => [
    makeProfile({ minMemoryGB, cpuCores, gpus }),
  ];

  it("creating a model charges its wanted replicas times its need", () => {
    const model = makeModel({
      scaling: { min: 3, max: 3, idleTimeoutSeconds: 900 },
      profiles: need(16, 4, 1),
    });
    expect(quotaIncrease(null, model)).toEqual({ memoryGB: 48, cpuCores: 12, gpus: 3, replicas: 3 });
  });

  it("an on-demand model counts the replicas it may run", () => {
    const model = makeModel({ scaling: { min: 0, max: 2, idleTimeoutSeconds: 900 }, profiles: need(8, 2) });
    expect(quotaIncrease(null, model)).toMatchObject({ memoryGB: 16, replicas: 2 });
  });

  it("raising replicas charges the extra ones only", () => {
    const before = makeModel({ scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 }, profiles: need(8, 2) });
    const after = { ...before, scaling: { min: 5, max: 5, idleTimeoutSeconds: 900 } };
    expect(quotaIncrease(before, after)).toEqual({ memoryGB: 24, cpuCores: 6, gpus: 0, replicas: 3 });
  });

  it("raising the per-replica need charges it on every wanted replica", () => {
    const before = makeModel({ scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 }, profiles: need(8, 2) });
    const after = { ...before, profiles: need(12, 2) };
    expect(quotaIncrease(before, after)).toEqual({ memoryGB: 8, cpuCores: 0, gpus: 0, replicas: 0 });
  });

  it("lowering charges nothing", () => {
    const before = makeModel({ scaling: { min: 4, max: 4, idleTimeoutSeconds: 900 }, profiles: need(8, 2) });
    const after = { ...before, scaling: { min: 0, max: 0, idleTimeoutSeconds: 900 } };
    expect(quotaIncrease(before, after)).toEqual(emptyUsage());
  });

  it("a model changing owner brings all of it to the new owner", () => {
    const before = makeModel({
      owner: "a",
      scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 },
      profiles: need(8, 2),
    });
    expect(quotaIncrease(before, { ...before, owner: "b" })).toEqual({
      memoryGB: 16,
      cpuCores: 4,
      gpus: 0,
      replicas: 2,
    });
  });
});

describe("quotaRemaining", () => {
  const need = { memoryGB: 16, cpuCores: 4, gpus: 0 };

  it("is the tightest of the limits that apply", () => {
    const quota = makeQuota({ owner: "r", memoryGB: 256, cpuCores: 64, replicas: 20 });
    const usage = { memoryGB: 200, cpuCores: 10, gpus: 0, replicas: 5 };
    // memory: floor(56 / 16) = 3; cores: floor(54 / 4) = 13; replicas: 15
    expect(quotaRemaining(quota, usage, need)).toBe(3);
  });

  it("ignores limits on dimensions the need does not use", () => {
    const quota = makeQuota({ owner: "r", gpus: 0 });
    expect(quotaRemaining(quota, emptyUsage(), need)).toBeNull();
  });

  it("is null without a quota or without any limit set", () => {
    expect(quotaRemaining(null, emptyUsage(), need)).toBeNull();
    expect(quotaRemaining(makeQuota({ owner: "r" }), emptyUsage(), need)).toBeNull();
  });

  it("is floored at 0 when usage is already past a limit", () => {
    const quota = makeQuota({ owner: "r", replicas: 3 });
    expect(quotaRemaining(quota, { ...emptyUsage(), replicas: 5 }, need)).toBe(0);
  });
});

describe("quotaCommitment", () => {
  it("charges a model the larger of what it holds and what it wants, so a target cannot climb past a limit in steps", () => {
    const model = makeModel({
      owner: "research",
      scaling: { min: 3, max: 3, idleTimeoutSeconds: 900 },
      need: { minMemoryGB: 4, cpuCores: 1, gpus: 0 },
    });
    const running = makeReplica({ model: model.name, memoryGB: 4, cpuCores: 1, state: "ready" });
    const committed = quotaCommitment("research", [model], [running]);
    expect(committed).toEqual({ memoryGB: 12, cpuCores: 3, gpus: 0, replicas: 3 });
    const raised = { ...model, scaling: { ...model.scaling, min: 5, max: 5 } };
    const refusal = admitQuota({
      owner: "research",
      quota: makeQuota({ owner: "research", replicas: 3 }),
      usage: committed,
      increase: quotaIncrease(model, raised),
    });
    expect(refusal?.dimension).toBe("replicas");
    expect(refusal?.message).toBe(
      "owner research would run 5 replicas, over its limit of 3 (uses 3, asks 2)",
    );
  });

  it("counts replicas beyond what a model wants (an agent reporting extra) and skips failed ones and other owners", () => {
    const model = makeModel({
      owner: "a",
      scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 },
      need: { minMemoryGB: 2, cpuCores: 1, gpus: 0 },
    });
    const other = makeModel({ owner: "b" });
    const replicas = [
      makeReplica({ model: model.name, memoryGB: 2, cpuCores: 1 }),
      makeReplica({ model: model.name, memoryGB: 2, cpuCores: 1 }),
      makeReplica({ model: model.name, memoryGB: 2, cpuCores: 1, state: "failed" }),
      makeReplica({ model: other.name, memoryGB: 9, cpuCores: 9 }),
    ];
    expect(quotaCommitment("a", [model, other], replicas)).toEqual({
      memoryGB: 4,
      cpuCores: 2,
      gpus: 0,
      replicas: 2,
    });
  });
});

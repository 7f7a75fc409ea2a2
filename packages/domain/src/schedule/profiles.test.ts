import { describe, expect, it } from "vitest";
import { makeGpuProfile, makeModel, makeNode, makeProfile, makeQuota, replicaOf } from "../../test/factories";
import { PLAN_NOW, planFleet } from "../../test/plan";
import { profilesByPriority } from "../need";
import { modelInputSchema } from "../schemas";
import { changesNothing } from "./apply";

// SPEC §2.6 "Profiles": placement tries a model's profiles from the highest priority down.

const _NOW = PLAN_NOW;
const plan = planFleet;

const gpu = makeGpuProfile();
const cpu = makeProfile({ name: "cpu", engine: "llamacpp", priority: 100, minMemoryGB: 8, cpuCores: 8 });

describe("profilesByPriority", () => {
  it("puts the highest priority first and keeps declared order among equals", () => {
    const a = makeProfile({ name: "a", priority: 1 });
    const b = makeProfile({ name: "b", priority: 5 });
    const c = makeProfile({ name: "c", priority: 5 });
    expect(profilesByPriority({ profiles: [a, b, c] }).map((p) => p.name)).toEqual(["b", "c", "a"]);
  });
});

describe("profile names", () => {
  it("refuses a model declaring one profile name twice, naming profiles", () => {
    const model = makeModel({ profiles: [cpu, { ...gpu, name: "cpu" }] });
    const parsed = modelInputSchema.safeParse({ ...model, origin: undefined });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["profiles"]);
    expect(parsed.error?.issues[0]?.message).toBe("profile name cpu is used twice");
  });
});

describe("placing by priority", () => {
  it("places on the highest-priority profile that has room and records it on the replica", () => {
    const model = makeModel({ profiles: [cpu, gpu], scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 } });
    const gpuNode = makeNode({ gpuTotal: 1, memoryGB: 32, engines: ["vllm", "llamacpp"] });

    const result = plan({ models: [model], nodes: [gpuNode] });

    expect(result.place).toEqual([
      expect.objectContaining({ profile: "gpu", node: gpuNode.name, memoryGB: 16, cpuCores: 2, gpus: 1 }),
    ]);
    expect(changesNothing(result.again)).toBe(true);
  });

  it("falls back to the CPU profile once the GPU profile is full", () => {
    const model = makeModel({ profiles: [cpu, gpu], scaling: { min: 3, max: 3, idleTimeoutSeconds: 900 } });
    const gpuNode = makeNode({ gpuTotal: 1, memoryGB: 32, cpuCount: 4, engines: ["vllm"] });
    const cpuNode = makeNode({ memoryGB: 64, cpuCount: 16, engines: ["llamacpp"] });

    const result = plan({ models: [model], nodes: [gpuNode, cpuNode] });

    const placed = result.place.map((r) => `${r.profile}@${r.node}`).sort();
    expect(placed).toEqual([`cpu@${cpuNode.name}`, `cpu@${cpuNode.name}`, `gpu@${gpuNode.name}`].sort());
    expect(changesNothing(result.again)).toBe(true);
  });

  it("names each profile tried when none has room", () => {
    const model = makeModel({ profiles: [cpu, gpu] });
    const small = makeNode({ memoryGB: 4, cpuCount: 2, engines: ["llamacpp"] });

    const result = plan({ models: [model], nodes: [small] });

    expect(result.pending).toHaveLength(1);
    expect(result.pending[0]?.profile).toBe("gpu");
    const reason = result.pending[0]?.reason ?? "";
    expect(reason).toMatch(/^no profile has room \(profile gpu: .*; profile cpu: .*\)$/);
    expect(changesNothing(result.again)).toBe(true);
  });

  it("preempts a lower class for a profile before trying the next profile", () => {
    const critical = makeModel({ class: "critical", profiles: [cpu, gpu] });
    const batch = makeModel({
      class: "batch",
      need: { engine: "vllm", minMemoryGB: 16, cpuCores: 2, gpus: 1 },
    });
    const gpuNode = makeNode({ gpuTotal: 1, memoryGB: 32, engines: ["vllm"] });
    const cpuNode = makeNode({ memoryGB: 64, engines: ["llamacpp"] });
    const victim = replicaOf(batch, { node: gpuNode.name });

    const result = plan({ models: [critical, batch], nodes: [gpuNode, cpuNode], replicas: [victim] });

    expect(result.evict.map((e) => e.replica.id)).toEqual([victim.id]);
    expect(result.place.find((r) => r.model === critical.name)).toMatchObject({
      profile: "gpu",
      node: gpuNode.name,
      state: "pending",
    });
  });

  it("charges the owner's quota at the profile's need: a GPU quota used up sends the replica to CPU", () => {
    const model = makeModel({
      owner: "team",
      profiles: [cpu, gpu],
      scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 },
    });
    const node = makeNode({ gpuTotal: 4, memoryGB: 128, cpuCount: 32, engines: ["vllm", "llamacpp"] });

    const result = plan({ models: [model], nodes: [node], quotas: [makeQuota({ owner: "team", gpus: 1 })] });

    expect(result.place.map((r) => r.profile).sort()).toEqual(["cpu", "gpu"]);
    expect(changesNothing(result.again)).toBe(true);
  });
});

import type { Replica } from "@llmgw/domain";
import { makeGpuProfile, makeProfile } from "@llmgw/domain/testing";
import { describe, expect, it } from "vitest";
import { runOnce } from "../src/scheduler";
import { beatPlaced, createOk, errorOf, heartbeat, modelInput, replicaReport, useApi } from "./harness";

// SPEC §2.6 "Profiles" through the API: placement tries a model's profiles by priority and the
// replica records the one it was placed with.

async function replicasOf(api: ReturnType<typeof useApi>, model: string): Promise<Replica[]> {
  const all = await (await api.client.fleet.replicas.$get()).json();
  return all.filter((r) => r.model === model);
}

const gpu = makeGpuProfile();
const cpu = makeProfile({ name: "cpu", engine: "llamacpp", priority: 100, minMemoryGB: 8, cpuCores: 4 });

describe("a model whose profiles share a name", () => {
  const api = useApi();
  it("is refused with a 400 naming profiles when two profiles share a name, and nothing is stored", async () => {
    const input = modelInput({ profiles: [cpu, { ...gpu, name: "cpu" }] });
    const res = await api.client.models.$post({ json: input });
    expect((await errorOf(res, 400)).fields).toEqual({ profiles: "profile name cpu is used twice" });
    expect((await api.client.models[":name"].$get({ param: { name: input.name } })).status).toBe(404);
  });
});

describe("priority fallback", () => {
  const api = useApi();
  const replicas = (model: string) => replicasOf(api, model);
  it("falls back to the CPU profile once the GPU node is full, and each agent is told its profile's engine", async () => {
    const gpuNode = heartbeat({ node: { memoryGB: 32, cpuCount: 8, gpuTotal: 1, engines: ["vllm"] } });
    const cpuNode = heartbeat({ node: { memoryGB: 64, cpuCount: 16, engines: ["llamacpp"] } });
    await beatPlaced(api, gpuNode);
    await beatPlaced(api, cpuNode);
    const model = await createOk(api, modelInput({ scaling: { min: 2, max: 2 }, profiles: [cpu, gpu] }));

    await runOnce(api.deps, api.control);

    const placed = (await replicas(model.name)).map((r) => [r.profile, r.node, r.gpus]).sort();
    expect(placed).toEqual([
      ["cpu", cpuNode.node.name, 0],
      ["gpu", gpuNode.node.name, 1],
    ]);
    const onCpu = await beatPlaced(api, cpuNode);
    expect(onCpu.replicas).toEqual([
      expect.objectContaining({ profile: "cpu", engine: "llamacpp", memoryGB: 8 }),
    ]);
    const onGpu = await beatPlaced(api, gpuNode);
    expect(onGpu.replicas).toEqual([expect.objectContaining({ profile: "gpu", engine: "vllm", gpus: 1 })]);

    // Ready, reported without a profile: each keeps the one it was placed with.
    const ready = (reply: typeof onCpu) =>
      reply.replicas.map((r) => replicaReport({ id: r.id, model: r.model }));
    await beatPlaced(api, { ...cpuNode, replicas: ready(onCpu) });
    await beatPlaced(api, { ...gpuNode, replicas: ready(onGpu) });
    const after = await replicas(model.name);
    expect(after.map((r) => [r.profile, r.state]).sort()).toEqual([
      ["cpu", "ready"],
      ["gpu", "ready"],
    ]);
    expect((await runOnce(api.deps, api.control))?.place.filter((r) => r.model === model.name)).toEqual([]);
  });
});

describe("preemption per profile", () => {
  const api = useApi();
  const replicas = (model: string) => replicasOf(api, model);
  it("preempts a lower class for its GPU profile before falling back to the CPU profile", async () => {
    const gpuNode = heartbeat({ node: { memoryGB: 32, cpuCount: 8, gpuTotal: 1, engines: ["vllm"] } });
    const cpuNode = heartbeat({ node: { memoryGB: 64, cpuCount: 16, engines: ["llamacpp"] } });
    await beatPlaced(api, gpuNode);
    await beatPlaced(api, cpuNode);
    const batch = await createOk(api, modelInput({ class: "batch", profiles: [gpu] }));
    await runOnce(api.deps, api.control);
    const [victim] = await replicas(batch.name);
    expect(victim).toMatchObject({ node: gpuNode.node.name, profile: "gpu" });
    const critical = await createOk(api, modelInput({ class: "critical", profiles: [cpu, gpu] }));

    const plan = await runOnce(api.deps, api.control);

    expect(plan?.evict.map((e) => e.replica.id)).toEqual([victim?.id]);
    expect(await replicas(critical.name)).toEqual([
      expect.objectContaining({ profile: "gpu", node: gpuNode.node.name, state: "pending" }),
    ]);
  });
});

describe("a model no profile fits", () => {
  const api = useApi();
  const replicas = (model: string) => replicasOf(api, model);
  it("says which profiles it tried when none has room", async () => {
    const small = heartbeat({ node: { memoryGB: 4, cpuCount: 2, engines: ["llamacpp"] } });
    await beatPlaced(api, small);
    const model = await createOk(api, modelInput({ profiles: [cpu, gpu] }));

    await runOnce(api.deps, api.control);

    const [pending] = await replicas(model.name);
    expect(pending).toMatchObject({ state: "pending", profile: "gpu" });
    expect(pending?.reason).toMatch(/^no profile has room \(profile gpu: .*; profile cpu: .*\)$/);
  });
});

import { describe, expect, it } from "vitest";
import { makeGpuProfile, makeModel, makeNode, makeProfile, makeReported, replicaOf } from "../test/factories";
import { desiredReplicas, mergeReport } from "./agentReport";
import { memoryReading } from "./measuredMemory";
import type { ModelSummary } from "./schemas";

// SPEC §2.6 "Profiles": a replica keeps the profile it was placed with through the agent's beats.

const NOW = "2025-06-01T12:00:00.000Z";
const cpu = makeProfile({
  name: "cpu",
  engine: "llamacpp",
  minMemoryGB: 8,
  cpuCores: 8,
  args: ["-c", "4096"],
});
const gpu = makeGpuProfile();

describe("a replica of a model with several profiles", () => {
  const model = makeModel({ profiles: [gpu, cpu] });
  const node = makeNode();
  const placed = replicaOf(model, {
    node: node.name,
    state: "starting",
    profile: "cpu",
    memoryGB: 8,
    cpuCores: 8,
    gpus: 0,
  });

  it("keeps its placed profile and need when the agent's report leaves the profile out", () => {
    const [merged] = mergeReport({
      node: node.name,
      reported: [makeReported({ id: placed.id, model: model.name })],
      stored: [placed],
      models: new Map([[model.name, model]]),
      now: NOW,
      scheduled: true,
      graceMs: 15_000,
    });
    expect(merged).toMatchObject({ profile: "cpu", memoryGB: 8, cpuCores: 8, gpus: 0 });
  });

  it("is sent to its agent with that profile's engine and args, not the first profile's", () => {
    const [wanted] = desiredReplicas(new Map([[model.name, model]]), [placed], () => null);
    expect(wanted).toMatchObject({ profile: "cpu", engine: "llamacpp", args: ["-c", "4096"], memoryGB: 8 });
  });
});

describe("measured memory of a model with several profiles", () => {
  it("reads only the default profile's replicas against the default profile's estimate", () => {
    const model = makeModel({ profiles: [cpu, gpu] });
    const onCpu = replicaOf(model, { profile: "cpu", measuredMemoryGB: 8.2 });
    const onGpu = replicaOf(model, { profile: "gpu", measuredMemoryGB: 30 });
    const reading = memoryReading({
      profiles: model.profiles,
      replicas: [onCpu, onGpu],
      headroom: { need: { memoryGB: 8, cpuCores: 8, gpus: 0 } } as ModelSummary["headroom"],
    });
    expect(reading).toEqual({ measured: 8.2, estimate: 8, verdict: "close" });
  });
});

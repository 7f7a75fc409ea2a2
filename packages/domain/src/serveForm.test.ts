import { describe, expect, it } from "vitest";
import { modelInputSchema, type ServePlan } from "./schemas";
import { modelFromServeForm, serveFormSchema } from "./serveForm";

function plan(overrides: Partial<ServePlan> = {}): ServePlan {
  return {
    model: "llama3.1-8b",
    version: "q4",
    source: "http://127.0.0.1:8080/mirror/llama3.1-8b/q4/Llama-3.1-8B.Q4_K_M.gguf",
    engine: "llamacpp",
    profile: "cpu",
    files: 1,
    minMemoryGB: 8,
    cpuCores: 8,
    memoryBasis: "weights plus half again plus two",
    ctxPool: 16384,
    refusal: null,
    warning: null,
    already: false,
    ...overrides,
  };
}

describe("serveFormSchema", () => {
  it("fills what the wizard leaves at its defaults", () => {
    const form = serveFormSchema.parse({ name: "llama3", contextLength: 8192, minMemoryGB: 8, cpuCores: 4 });
    expect(form).toEqual({
      name: "llama3",
      description: "",
      aliases: [],
      contextLength: 8192,
      maxOutput: null,
      class: "standard",
      owner: "",
      ctxPool: 16384,
      mode: "always",
      replicas: 1,
      maxReplicas: null,
      minMemoryGB: 8,
      cpuCores: 4,
    });
  });

  it("refuses what the API would refuse, on the field that is wrong", () => {
    const result = serveFormSchema.safeParse({
      name: "no spaces allowed",
      contextLength: 0,
      minMemoryGB: 8,
      cpuCores: 4,
      nodeSelector: { key: "", value: "a100" },
    });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((i) => i.path.join(".")).sort();
    expect(paths).toEqual(["contextLength", "name", "nodeSelector.key"]);
  });

  it("shares the name rule with the model schema", () => {
    expect(serveFormSchema.shape.name).toBe(modelInputSchema.shape.name);
  });
});

describe("modelFromServeForm", () => {
  it("makes a catalogue entry the API accepts, with the plan's source and engine", () => {
    const form = serveFormSchema.parse({
      name: "llama3",
      aliases: ["l3"],
      contextLength: 8192,
      maxOutput: 2048,
      class: "batch",
      owner: "research",
      ctxPool: 32768,
      mode: "ondemand",
      replicas: 2,
      minMemoryGB: 10,
      cpuCores: 6,
      nodeSelector: { key: "size", value: "large" },
    });
    const input = modelFromServeForm(plan(), form);
    expect(input).toEqual({
      name: "llama3",
      description: "",
      source: plan().source,
      aliases: ["l3"],
      contextLength: 8192,
      maxOutput: 2048,
      class: "batch",
      owner: "research",
      scaling: { min: 0, max: 2, idleTimeoutSeconds: 900 },
      profiles: [
        {
          name: "cpu",
          engine: "llamacpp",
          weight: 1,
          priority: 100,
          args: ["--ctx-size", "32768"],
          minMemoryGB: 10,
          cpuCores: 6,
          gpus: 0,
          nodeSelector: { size: "large" },
        },
      ],
    });
    expect(modelInputSchema.safeParse(input).success).toBe(true);
  });

  it("gives a vLLM profile a card and no llama.cpp arguments", () => {
    const form = serveFormSchema.parse({ name: "qwen", contextLength: 4096, minMemoryGB: 32, cpuCores: 8 });
    const input = modelFromServeForm(
      plan({ engine: "vllm", profile: "gpu", source: "http://m/mirror/q/v/" }),
      form,
    );
    expect(input.profiles[0]).toMatchObject({
      name: "gpu",
      engine: "vllm",
      args: [],
      gpus: 1,
      nodeSelector: {},
    });
    expect(input.scaling).toEqual({ min: 1, max: 1, idleTimeoutSeconds: 900 });
    expect(modelInputSchema.safeParse(input).success).toBe(true);
  });

  it("offers max beside replicas for an always-on model: traffic decides between them (SPEC §9.6)", () => {
    const base = { name: "chat", contextLength: 4096, minMemoryGB: 8, cpuCores: 4 };
    const scaled = serveFormSchema.parse({ ...base, replicas: 1, maxReplicas: 4 });
    expect(modelFromServeForm(plan(), scaled).scaling).toEqual({ min: 1, max: 4, idleTimeoutSeconds: 900 });
    const onDemand = serveFormSchema.parse({ ...base, mode: "ondemand", replicas: 2, maxReplicas: 4 });
    expect(modelFromServeForm(plan(), onDemand).scaling).toEqual({ min: 0, max: 2, idleTimeoutSeconds: 900 });
    const below = serveFormSchema.safeParse({ ...base, replicas: 3, maxReplicas: 2 });
    expect(below.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["maxReplicas", "at least the replicas it always runs"],
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { llama31Summary, makeMirrorFile, makeMirrorVersion, makeNode } from "../test/factories";
import type { GgufVerdict } from "./schemas";
import { engineFor, extensionOf, mirrorUrl, servePlan } from "./servePlan";

const GiB = 1024 ** 3;
const BASE = "http://mirror.example:8080/";

const llama31 = llama31Summary({ parameterCount: null });
const servable: GgufVerdict = { servable: true, reason: null, summary: llama31 };

function plan(overrides: Partial<Parameters<typeof servePlan>[0]> = {}) {
  return servePlan({
    version: makeMirrorVersion(),
    baseUrl: BASE,
    nodes: [makeNode({ memoryGB: 64, cpuCount: 16, engines: ["llamacpp"] })],
    existing: null,
    verdict: null,
    ...overrides,
  });
}

describe("servePlan", () => {
  it("offers a single GGUF file on the CPU nodes, from its mirror URL", () => {
    const version = makeMirrorVersion({
      model: "llama3.1:8b",
      version: "q4",
      files: [
        makeMirrorFile({
          file: "Llama-3.1-8B.Q4_K_M.gguf",
          bytesDone: 4_920_734_016,
          bytesTotal: 4_920_734_016,
        }),
      ],
    });
    expect(plan({ version, verdict: servable })).toEqual({
      model: "llama3.1:8b",
      version: "q4",
      source: "http://mirror.example:8080/mirror/llama3.1:8b/q4/Llama-3.1-8B.Q4_K_M.gguf",
      engine: "llamacpp",
      profile: "cpu",
      files: 1,
      minMemoryGB: 8,
      cpuCores: 8,
      memoryBasis:
        "weights 4.6 GB + KV cache 2.0 GB for 16384 tokens (32 layers × 8 KV heads) + 1.2 GB for the engine",
      ctxPool: 16384,
      refusal: null,
      warning: null,
      already: false,
    });
  });

  it("serves a multi-file version as its directory: source ends in /, files counted, sizes summed", () => {
    const version = makeMirrorVersion({
      model: "qwen2.5-7b",
      version: "main",
      files: [
        makeMirrorFile({ file: "config.json", bytesDone: 1_000, bytesTotal: 1_000 }),
        makeMirrorFile({ file: "model-00001-of-00002.safetensors", bytesDone: 4 * GiB, bytesTotal: 4 * GiB }),
        // Still downloading: counts at its expected size.
        makeMirrorFile({ file: "model-00002-of-00002.safetensors", bytesDone: GiB, bytesTotal: 4 * GiB }),
      ],
    });
    const gpuFleet = [makeNode({ memoryGB: 64, cpuCount: 32, gpuTotal: 1, engines: ["vllm"] })];
    expect(plan({ version, nodes: gpuFleet })).toMatchObject({
      source: "http://mirror.example:8080/mirror/qwen2.5-7b/main/",
      files: 3,
      engine: "vllm",
      profile: "gpu",
      // floor(8 GiB × 1.5) + 2, the config file's kilobyte rounding away
      minMemoryGB: 14,
      memoryBasis: "weights plus half again plus two",
      refusal: null,
      warning: null,
    });
  });

  it("counts a file whose expected size is unknown at what has arrived", () => {
    const version = makeMirrorVersion({ files: [makeMirrorFile({ bytesDone: 10 * GiB, bytesTotal: null })] });
    expect(plan({ version }).minMemoryGB).toBe(17);
  });

  it("refuses a kind of file nothing here reads", () => {
    const version = makeMirrorVersion({ files: [makeMirrorFile({ file: "model.onnx" })] });
    expect(plan({ version })).toMatchObject({
      refusal: "nothing here reads .onnx files",
      engine: "",
      profile: "",
      warning: null,
    });
  });

  it("reads extensions case-insensitively", () => {
    const version = makeMirrorVersion({ files: [makeMirrorFile({ file: "MODEL.GGUF" })] });
    expect(plan({ version })).toMatchObject({ engine: "llamacpp", refusal: null });
  });

  it("refuses a GGUF llama.cpp cannot run, with the verdict's reason", () => {
    const verdict: GgufVerdict = {
      servable: false,
      reason: "this is part 3 of 4 of a split model; serve part 1",
      summary: null,
    };
    expect(plan({ verdict }).refusal).toBe(
      "llama.cpp on the nodes cannot run this: this is part 3 of 4 of a split model; serve part 1",
    );
  });

  it("warns when nodes report engines and none has this one", () => {
    const nodes = [makeNode({ engines: ["vllm"], gpuTotal: 2 })];
    expect(plan({ nodes }).warning).toBe(
      "no node reports having llamacpp installed, and .gguf weights need it",
    );
  });

  it("does not warn when no node reports engines: older agents are not empty ones", () => {
    expect(plan({ nodes: [makeNode({ engines: [] }), makeNode({ engines: [] })] }).warning).toBeNull();
  });

  it("a .bin model on a fleet with no GPU: both clauses of the engine warning", () => {
    const version = makeMirrorVersion({
      files: [makeMirrorFile({ file: "pytorch_model.bin", bytesTotal: 2 * GiB })],
    });
    const nodes = [makeNode({ engines: ["llamacpp"], gpuTotal: 0, memoryGB: 64 })];
    expect(plan({ version, nodes })).toMatchObject({
      engine: "vllm",
      refusal: null,
      warning:
        "no node reports having vllm installed, and .bin weights need it. This fleet has no GPU either; " +
        "a GGUF build of the same model runs on the CPU nodes",
    });
  });

  it("names the weights' extension in a multi-file version, not the first file's", () => {
    const version = makeMirrorVersion({
      files: [makeMirrorFile({ file: "tokenizer.json" }), makeMirrorFile({ file: "model.safetensors" })],
    });
    const nodes = [makeNode({ engines: ["llamacpp"], gpuTotal: 1 })];
    expect(plan({ version, nodes }).warning).toBe(
      "no node reports having vllm installed, and .safetensors weights need it",
    );
  });

  it("warns when the model needs more than the largest node has", () => {
    const version = makeMirrorVersion({ files: [makeMirrorFile({ bytesTotal: 40 * GiB })] });
    const nodes = [makeNode({ memoryGB: 16 }), makeNode({ memoryGB: 32 })];
    expect(plan({ version, nodes })).toMatchObject({
      minMemoryGB: 62,
      warning: "the largest node has 32 GB and this needs about 62",
      // No node has the memory: nothing to halve.
      cpuCores: 0,
    });
  });

  it("joins the warnings with ', and '", () => {
    const version = makeMirrorVersion({
      files: [makeMirrorFile({ file: "model.bin", bytesTotal: 40 * GiB })],
    });
    const nodes = [makeNode({ memoryGB: 15.6, engines: ["llamacpp"] })];
    expect(plan({ version, nodes }).warning).toBe(
      "no node reports having vllm installed, and .bin weights need it. This fleet has no GPU either; " +
        "a GGUF build of the same model runs on the CPU nodes, and the largest node has 15.6 GB and this needs about 62",
    );
  });

  it("refuses a model declared in configuration, and marks it already there", () => {
    const version = makeMirrorVersion({ model: "llama3" });
    expect(plan({ version, existing: { origin: "config" } })).toMatchObject({
      already: true,
      refusal:
        "a model called llama3 is declared in configuration; edit it there rather than adding a second",
    });
  });

  it("marks one added at runtime as already there, without refusing", () => {
    expect(plan({ existing: { origin: "runtime" } })).toMatchObject({ already: true, refusal: null });
  });

  it("suggests cores from the nodes the model fits on, some reporting none", () => {
    const nodes = [
      makeNode({ memoryGB: 64, cpuCount: 0 }),
      makeNode({ memoryGB: 4, cpuCount: 2 }),
      makeNode({ memoryGB: 128, cpuCount: 24 }),
      makeNode({ memoryGB: 32, cpuCount: 12 }),
    ];
    expect(plan({ nodes }).cpuCores).toBe(6);
  });

  it("uses the pool it is given, for the memory too", () => {
    const version = makeMirrorVersion({ files: [makeMirrorFile({ bytesTotal: 4_920_734_016 })] });
    expect(plan({ version, verdict: servable, ctxPool: 65_536 })).toMatchObject({
      ctxPool: 65_536,
      minMemoryGB: 14,
    });
    expect(plan({ ctxPool: 0 }).ctxPool).toBe(16_384);
  });

  it("uses the mirror's header summary when no verdict was read for the plan", () => {
    const version = makeMirrorVersion({
      files: [makeMirrorFile({ bytesTotal: 4_920_734_016 })],
      gguf: llama31,
    });
    expect(plan({ version }).minMemoryGB).toBe(8);
  });

  it("refuses a version with no files", () => {
    expect(plan({ version: makeMirrorVersion({ files: [] }) })).toMatchObject({
      refusal: "this version holds no files",
      files: 0,
    });
  });
});

describe("engineFor", () => {
  it("maps weights to the engine that reads them", () => {
    expect(engineFor("a.gguf")).toBe("llamacpp");
    expect(engineFor("a.safetensors")).toBe("vllm");
    expect(engineFor("pytorch_model.BIN")).toBe("vllm");
    expect(engineFor("README")).toBeNull();
  });
});

describe("extensionOf and mirrorUrl", () => {
  it("takes the extension from the last dot of the file name", () => {
    expect(extensionOf("Llama.Q4_K_M.gguf")).toBe(".gguf");
    expect(extensionOf("dir.v2/README")).toBe("");
  });

  it("joins without doubling slashes and keeps model names legible", () => {
    expect(mirrorUrl("http://h/", "qwen:7b", "v1", "a b.gguf")).toBe("http://h/mirror/qwen:7b/v1/a%20b.gguf");
    expect(mirrorUrl("http://h", "m", "v", "")).toBe("http://h/mirror/m/v/");
  });
});

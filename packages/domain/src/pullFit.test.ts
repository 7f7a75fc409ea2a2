import { describe, expect, it } from "vitest";
import { makeClasses, makeModel, makeNode, replicaOf } from "../test/factories";
import { indexFleet } from "./fleetIndex";
import type { GgufHeader } from "./gguf";
import type { HubFile } from "./pullChoice";
import { bestFitting, noSpaceMessage, pullChoiceOf } from "./pullFit";
import type { PullChoice } from "./pullSchemas";
import type { Node } from "./schemas";

const GiB = 1024 ** 3;

/** A Llama 3.1 8B header: 32 layers × 8 KV heads × 128 + 128, so 4 GiB of KV cache for 16k tokens. */
const llamaHeader: GgufHeader = {
  metadata: {
    version: 3,
    "general.architecture": "llama",
    "llama.block_count": 32,
    "llama.attention.head_count": 32,
    "llama.attention.head_count_kv": 8,
    "llama.embedding_length": 4096,
    "llama.context_length": 131072,
  },
};

function gguf(path: string, bytes: number): HubFile {
  return { path, bytes, sha256: "b".repeat(64), gitOid: null };
}

function choice(nodes: Node[], files: HubFile[], header: GgufHeader | null = llamaHeader) {
  const index = indexFleet({ nodes, replicas: [], models: [], classes: makeClasses() });
  return pullChoiceOf({ quant: "Q4_K_M", files, header, index });
}

describe("pullChoiceOf", () => {
  it("estimates from the header and counts the ready nodes that hold one replica now", () => {
    const files = [gguf("m-Q4_K_M.gguf", 4 * GiB)];
    // 4 GiB weights + 2 GiB KV + 1 GiB + 0.2 GiB engine: 8 GB (ceil).
    const nodes = [
      makeNode({ memoryGB: 16, cpuCount: 8 }),
      makeNode({ memoryGB: 64, cpuCount: 16 }),
      makeNode({ memoryGB: 4, cpuCount: 8 }),
      makeNode({ memoryGB: 64, cpuCount: 16, state: "down" }),
      makeNode({ memoryGB: 64, cpuCount: 16, engines: ["vllm"] }),
    ];
    expect(choice(nodes, files)).toEqual({
      quant: "Q4_K_M",
      files: [{ path: "m-Q4_K_M.gguf", bytes: 4 * GiB }],
      bytes: 4 * GiB,
      estimateGB: 8,
      fits: 2,
      refusal: null,
    });
  });

  it("counts free capacity only: a node already full holds none", () => {
    const busy = makeNode({ memoryGB: 16, cpuCount: 8 });
    const model = makeModel({ need: { minMemoryGB: 12, cpuCores: 2 } });
    const index = indexFleet({
      nodes: [busy, makeNode({ memoryGB: 16, cpuCount: 8 })],
      replicas: [replicaOf(model, { node: busy.name, state: "ready" })],
      models: [model],
      classes: makeClasses(),
    });
    const result = pullChoiceOf({
      quant: "Q4_K_M",
      files: [gguf("m.gguf", 4 * GiB)],
      header: llamaHeader,
      index,
    });
    expect(result.fits).toBe(1);
  });

  it("sums a split file's parts and refuses what llama.cpp will not run", () => {
    const files = [gguf("m-00001-of-00002.gguf", 30 * GiB), gguf("m-00002-of-00002.gguf", 30 * GiB)];
    const big = [makeNode({ memoryGB: 512, cpuCount: 64 })];
    expect(choice(big, files)).toMatchObject({ bytes: 60 * GiB, estimateGB: 66, fits: 1 });
    const odd: GgufHeader = { metadata: { ...llamaHeader.metadata, "general.architecture": "nonesuch" } };
    expect(choice(big, files, odd)).toMatchObject({
      fits: 0,
      refusal: 'llama.cpp on the nodes cannot run this: llama.cpp does not run the "nonesuch" architecture',
    });
  });

  it("asks a GPU for safetensors, and falls back to the flat estimate without a header", () => {
    const files = [
      { path: "config.json", bytes: 700, sha256: null, gitOid: "c".repeat(40) },
      { path: "model.safetensors", bytes: 2 * GiB, sha256: "d".repeat(64), gitOid: null },
    ];
    const cpuOnly = [makeNode({ memoryGB: 64, cpuCount: 16 })];
    const withGpu = [...cpuOnly, makeNode({ memoryGB: 64, cpuCount: 16, gpuTotal: 1, gpuMemoryGB: 24 })];
    expect(choice(cpuOnly, files, null)).toMatchObject({ estimateGB: 5, fits: 0, refusal: null });
    expect(choice(withGpu, files, null)).toMatchObject({ fits: 1 });
  });
});

describe("bestFitting", () => {
  const c = (quant: string, bytes: number, fits: number, refusal: string | null = null): PullChoice => ({
    quant,
    files: [],
    bytes,
    estimateGB: 1,
    fits,
    refusal,
  });

  it("is the largest that fits somewhere now", () => {
    expect(bestFitting([c("Q4_K_M", 4, 3), c("Q8_0", 8, 1), c("F16", 16, 0)])).toBe("Q8_0");
    expect(bestFitting([c("Q8_0", 8, 2, "no")])).toBeNull();
    expect(bestFitting([c("F16", 16, 0)])).toBeNull();
  });
});

describe("noSpaceMessage", () => {
  it("says what is needed and what is free, in decimal GB", () => {
    expect(noSpaceMessage(4.1e9, 2e9, "/srv/mirror")).toBe("needs 4.1 GB, 2.0 GB free in /srv/mirror");
    expect(noSpaceMessage(5e7, -1, "/m")).toBe("needs 50.0 MB, 0.0 MB free in /m");
  });
});

import { describe, expect, it } from "vitest";
import { llama31Summary } from "../test/factories";
import { ggufSummary, ggufVerdict, kvBytesPerToken, LLAMACPP_ARCHITECTURES } from "./gguf";
import type { GgufSummary } from "./schemas";

/** Header metadata as @huggingface/gguf returns it for a Llama 3.1 8B file. */
function llama31Metadata(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: 3,
    tensor_count: 292n,
    kv_count: 33n,
    "general.architecture": "llama",
    "general.file_type": 15,
    "llama.block_count": 32,
    "llama.context_length": 131072,
    "llama.embedding_length": 4096,
    "llama.attention.head_count": 32,
    "llama.attention.head_count_kv": 8,
    ...overrides,
  };
}

function summary(overrides: Partial<GgufSummary> = {}): GgufSummary {
  return {
    architecture: "llama",
    blockCount: null,
    headCount: null,
    headCountKV: null,
    embeddingLength: null,
    keyLength: null,
    valueLength: null,
    contextLength: null,
    fileType: null,
    parameterCount: null,
    ...overrides,
  };
}

describe("ggufVerdict", () => {
  it("serves a Llama 3.1 header and summarises its shape as written", () => {
    expect(ggufVerdict({ metadata: llama31Metadata(), parameterCount: 8_030_261_248 })).toEqual({
      servable: true,
      reason: null,
      summary: llama31Summary(),
    });
  });

  it("refuses a file that is not GGUF", () => {
    expect(ggufVerdict({ error: "invalid magic" })).toEqual({
      servable: false,
      reason: "not a GGUF file",
      summary: null,
    });
  });

  it("refuses GGUF version 1, which llama.cpp no longer reads", () => {
    expect(ggufVerdict({ metadata: llama31Metadata({ version: 1 }) })).toMatchObject({
      servable: false,
      reason: "GGUF version 1 is not read by llama.cpp (it reads 2 and 3)",
    });
  });

  it("reads versions 2 and 3, given as number or bigint", () => {
    expect(ggufVerdict({ metadata: llama31Metadata({ version: 2 }) }).servable).toBe(true);
    expect(ggufVerdict({ metadata: llama31Metadata({ version: 3n }) }).servable).toBe(true);
    expect(ggufVerdict({ metadata: llama31Metadata({ version: 4n }) }).reason).toBe(
      "GGUF version 4 is not read by llama.cpp (it reads 2 and 3)",
    );
  });

  it("refuses an architecture llama.cpp does not run, naming it", () => {
    expect(ggufVerdict({ metadata: { version: 3, "general.architecture": "xyz" } })).toMatchObject({
      servable: false,
      reason: 'llama.cpp does not run the "xyz" architecture',
      summary: { architecture: "xyz" },
    });
  });

  it("refuses a header that names no architecture", () => {
    expect(ggufVerdict({ metadata: { version: 3 } }).reason).toBe("the header names no architecture");
  });

  it("refuses a split file that is not part 1 (split.no counts from 0)", () => {
    const part3 = llama31Metadata({ "split.no": 2, "split.count": 4, "split.tensors.count": 292 });
    expect(ggufVerdict({ metadata: part3 })).toMatchObject({
      servable: false,
      reason: "this is part 3 of 4 of a split model; serve part 1",
    });
    expect(ggufVerdict({ metadata: { version: 3, "split.no": 1 } }).reason).toBe(
      "this is part 2 of a split model; serve part 1",
    );
  });

  it("serves part 1 of a split model", () => {
    expect(ggufVerdict({ metadata: llama31Metadata({ "split.no": 0, "split.count": 4 }) }).servable).toBe(
      true,
    );
  });

  it("accepts every architecture on the list, and the list has no duplicates", () => {
    expect(new Set(LLAMACPP_ARCHITECTURES).size).toBe(LLAMACPP_ARCHITECTURES.length);
    for (const arch of [
      "llama",
      "qwen2",
      "qwen3moe",
      "gemma3",
      "phi3",
      "command-r",
      "deepseek2",
      "mistral3",
    ]) {
      expect(ggufVerdict({ metadata: { version: 3, "general.architecture": arch } }).servable).toBe(true);
    }
    expect(LLAMACPP_ARCHITECTURES).not.toContain("clip");
  });
});

describe("ggufSummary", () => {
  it("reads bigint values and the explicit key and value lengths", () => {
    const meta = {
      "general.architecture": "gemma2",
      "gemma2.block_count": 42n,
      "gemma2.attention.head_count": 16n,
      "gemma2.attention.head_count_kv": 8n,
      "gemma2.embedding_length": 3584n,
      "gemma2.attention.key_length": 256n,
      "gemma2.attention.value_length": 256n,
      "general.parameter_count": 9_241_705_984n,
    };
    expect(ggufSummary(meta)).toMatchObject({
      blockCount: 42,
      headCount: 16,
      headCountKV: 8,
      embeddingLength: 3584,
      keyLength: 256,
      valueLength: 256,
      parameterCount: 9_241_705_984,
    });
  });

  it("counts a per-layer list of KV heads as its largest entry", () => {
    const meta = {
      "general.architecture": "jamba",
      "jamba.attention.head_count_kv": [0, 0, 0, 8, 0, 0, 0, 8],
    };
    expect(ggufSummary(meta).headCountKV).toBe(8);
  });

  it("leaves what the header does not say as null", () => {
    expect(ggufSummary({})).toEqual(summary({ architecture: null }));
  });
});

describe("kvBytesPerToken", () => {
  it("Llama 3.1 8B: 32 layers × 8 KV heads × (128 + 128) × 2 = 131,072 bytes, exactly 2 GiB for 16,384 tokens", () => {
    const llama = summary({ blockCount: 32, headCount: 32, headCountKV: 8, embeddingLength: 4096 });
    expect(kvBytesPerToken(llama)).toBe(131_072);
    expect(16_384 * kvBytesPerToken(llama)).toBe(2 * 1024 ** 3);
  });

  it("Qwen2.5 7B: 28 layers × 4 KV heads × head dim 128 → 57,344 bytes", () => {
    const qwen = summary({ blockCount: 28, headCount: 28, headCountKV: 4, embeddingLength: 3584 });
    expect(kvBytesPerToken(qwen)).toBe(57_344);
  });

  it("Gemma 2 9B: head dim 256 from key_length/value_length, not embedding/heads (3584/16 = 224)", () => {
    const gemma = summary({
      blockCount: 42,
      headCount: 16,
      headCountKV: 8,
      embeddingLength: 3584,
      keyLength: 256,
      valueLength: 256,
    });
    expect(kvBytesPerToken(gemma)).toBe(42 * 8 * 512 * 2);
  });

  it("Mistral 7B v0.1 written without head_count_kv counts every head (no grouped-query)", () => {
    const old = summary({ blockCount: 32, headCount: 32, embeddingLength: 4096 });
    expect(kvBytesPerToken(old)).toBe(32 * 32 * 256 * 2);
  });

  it("is 0 when the header does not say enough", () => {
    expect(kvBytesPerToken(null)).toBe(0);
    expect(kvBytesPerToken(summary({ headCount: 32, embeddingLength: 4096 }))).toBe(0);
    expect(kvBytesPerToken(summary({ blockCount: 32 }))).toBe(0);
    expect(kvBytesPerToken(summary({ blockCount: 32, headCountKV: 8 }))).toBe(0);
  });
});

import { describe, expect, it } from "vitest";
import { llama31Summary } from "../test/factories";
import { FLAT_MEMORY_BASIS, memoryEstimate } from "./memory";

const GiB = 1024 ** 3;

const llama31 = llama31Summary();

describe("memoryEstimate", () => {
  it("from the header: Llama 3.1 8B Q4_K_M (4.92 GB) with a 16k pool needs 8 GB", () => {
    const weights = 4_920_734_016;
    const estimate = memoryEstimate({ weightsBytes: weights, summary: llama31, ctxPool: 16_384 });
    // weights 4.58 GiB + KV 2 GiB + engine (1 GiB + 5% of the weights) 1.23 GiB = 7.81 GiB
    expect(estimate.minMemoryGB).toBe(Math.ceil((weights + 2 * GiB + GiB + Math.floor(weights / 20)) / GiB));
    expect(estimate).toEqual({
      minMemoryGB: 8,
      memoryBasis:
        "weights 4.6 GB + KV cache 2.0 GB for 16384 tokens (32 layers × 8 KV heads) + 1.2 GB for the engine",
    });
  });

  it("grows with the pool: the same model at 65,536 tokens carries 8 GB of KV cache", () => {
    const estimate = memoryEstimate({ weightsBytes: 4_920_734_016, summary: llama31, ctxPool: 65_536 });
    expect(estimate.minMemoryGB).toBe(14);
    expect(estimate.memoryBasis).toContain("KV cache 8.0 GB for 65536 tokens");
  });

  it("defaults the pool to 16,384 tokens", () => {
    expect(memoryEstimate({ weightsBytes: 4_920_734_016, summary: llama31 }).memoryBasis).toContain(
      "for 16384 tokens",
    );
  });

  it("names the KV heads as head_count when the header has no head_count_kv", () => {
    const old = { ...llama31, headCountKV: null };
    expect(memoryEstimate({ weightsBytes: 4 * GiB, summary: old }).memoryBasis).toContain(
      "(32 layers × 32 KV heads)",
    );
  });

  it("without a usable header: weights plus half again plus two", () => {
    expect(memoryEstimate({ weightsBytes: 10 * GiB, summary: null })).toEqual({
      minMemoryGB: 17,
      memoryBasis: FLAT_MEMORY_BASIS,
    });
    expect(FLAT_MEMORY_BASIS).toBe("weights plus half again plus two");
    // floor(4.58 × 1.5) + 2
    expect(memoryEstimate({ weightsBytes: 4_920_734_016, summary: null }).minMemoryGB).toBe(8);
  });

  it("falls back to the flat rule when the header cannot give a KV size", () => {
    const shapeless = { ...llama31, blockCount: null };
    expect(memoryEstimate({ weightsBytes: 10 * GiB, summary: shapeless }).memoryBasis).toBe(
      FLAT_MEMORY_BASIS,
    );
  });

  it("asks for nothing when the weights' size is not known yet", () => {
    expect(memoryEstimate({ weightsBytes: 0, summary: null }).minMemoryGB).toBe(0);
    expect(memoryEstimate({ weightsBytes: 0, summary: llama31 }).minMemoryGB).toBe(0);
  });
});

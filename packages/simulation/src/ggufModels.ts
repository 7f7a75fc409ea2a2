import type { GgufFileSpec } from "./ggufFiles";

// Named GGUF files for tests, the browser tests' server and the demo: real models' headers, so
// plans and summaries read as they would for the files an operator downloads. Override what a
// test is about; the rest stays the model's.

const GB = 1_000_000_000;

/**
 * Llama 3.1 8B Instruct Q4_K_M as its GGUF header describes it: 32 layers, 32 heads of which 8 for
 * K/V, 4096 wide, 128K context. The files below and the summary tests expect of them
 * (`llama31Summary` in @llmgw/domain/testing) both start from it, so the two cannot drift apart.
 */
export const LLAMA31_8B = {
  architecture: "llama",
  blockCount: 32,
  headCount: 32,
  headCountKV: 8,
  embeddingLength: 4096,
  contextLength: 131072,
  fileType: 15,
  parameterCount: 8_030_261_248,
} as const;

/** Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf: 4.92 GB of weights. */
export function llama31_8b(overrides: Partial<GgufFileSpec> = {}): GgufFileSpec {
  return { ...LLAMA31_8B, weightsBytes: 4.92 * GB, ...overrides };
}

/** Llama 3 8B at Q4_K_M, the 4.7 GB file: Llama 3.1's shape with the 8K context it had before. */
export function llama3_8b(overrides: Partial<GgufFileSpec> = {}): GgufFileSpec {
  return llama31_8b({ contextLength: 8192, weightsBytes: 4.7 * GB, ...overrides });
}

/** A well-formed header of an architecture llama.cpp does not know: a version the verdict refuses. */
export function fancynet3b(overrides: Partial<GgufFileSpec> = {}): GgufFileSpec {
  return {
    architecture: "fancynet",
    blockCount: 24,
    headCount: 16,
    embeddingLength: 2048,
    contextLength: 4096,
    weightsBytes: Math.round(3.2 * 1024 ** 3),
    ...overrides,
  };
}

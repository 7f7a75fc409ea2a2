import { z } from "zod";
import { count, sha256Hex } from "./primitives";

// The mirror and the serve plan (SPEC §2.2, §2.3): mirrored versions, their files and GGUF headers.
export const mirrorFileSchema = z.object({
  file: z.string(),
  bytesDone: count,
  bytesTotal: count.nullable(),
  state: z.enum(["downloading", "complete", "failed"]),
  error: z.string().nullable(),
  /**
   * The complete file's SHA-256 (SPEC §8.1), which the mirror computes in the background: null
   * until then, and for a file still downloading. Defaults to null so versions stored before it
   * existed still parse.
   */
  sha256: sha256Hex.nullable().default(null),
});
export type MirrorFile = z.infer<typeof mirrorFileSchema>;

export const ggufSummarySchema = z.object({
  architecture: z.string().nullable(),
  blockCount: z.int().nullable(),
  headCount: z.int().nullable(),
  headCountKV: z.int().nullable(),
  embeddingLength: z.int().nullable(),
  keyLength: z.int().nullable(),
  valueLength: z.int().nullable(),
  contextLength: z.int().nullable(),
  fileType: z.int().nullable(),
  parameterCount: z.number().nullable(),
});
export type GgufSummary = z.infer<typeof ggufSummarySchema>;

export const ggufVerdictSchema = z.object({
  servable: z.boolean(),
  reason: z.string().nullable(),
  summary: ggufSummarySchema.nullable(),
});
export type GgufVerdict = z.infer<typeof ggufVerdictSchema>;

export const mirrorVersionSchema = z.object({
  model: z.string(),
  version: z.string(),
  files: z.array(mirrorFileSchema),
  gguf: ggufSummarySchema.nullable(),
});
export type MirrorVersion = z.infer<typeof mirrorVersionSchema>;

export const DEFAULT_CTX_POOL = 16384;
export const servePlanSchema = z.object({
  model: z.string(),
  version: z.string(),
  source: z.string(),
  engine: z.string(),
  profile: z.string(),
  files: count,
  minMemoryGB: count,
  cpuCores: count,
  memoryBasis: z.string(),
  ctxPool: z.int().positive(),
  refusal: z.string().nullable(),
  warning: z.string().nullable(),
  already: z.boolean(),
});
export type ServePlan = z.infer<typeof servePlanSchema>;

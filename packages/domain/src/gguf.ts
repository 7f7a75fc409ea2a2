import type { GgufSummary, GgufVerdict } from "./schemas";

/**
 * The architectures llama.cpp builds a graph for (`LLM_ARCH_NAMES` in its `src/llama-arch.cpp`,
 * without the `clip` placeholder that only llama-quantize uses). The one place this list lives:
 * a model whose header names anything else would be offered and then fail on every node.
 */
// biome-ignore format: a list read by scanning, one entry a line would be 110 lines
export const LLAMACPP_ARCHITECTURES: readonly string[] = [
  "llama", "llama4", "deci", "falcon", "falcon-h1", "grok", "gpt2", "gptj", "gptneox", "mpt",
  "baichuan", "starcoder", "starcoder2", "refact", "bert", "nomic-bert", "nomic-bert-moe",
  "neo-bert", "jina-bert-v2", "jina-bert-v3", "bloom", "stablelm", "qwen", "qwen2", "qwen2moe",
  "qwen2vl", "qwen3", "qwen3moe", "qwen3next", "qwen3vl", "qwen3vlmoe", "phi2", "phi3", "phimoe",
  "plamo", "plamo2", "codeshell", "orion", "internlm2", "minicpm", "minicpm3", "gemma", "gemma2",
  "gemma3", "gemma3n", "gemma-embedding", "mamba", "mamba2", "jamba", "xverse", "command-r",
  "cohere2", "dbrx", "olmo", "olmo2", "olmoe", "openelm", "arctic", "deepseek", "deepseek2",
  "chatglm", "glm4", "glm4moe", "bitnet", "t5", "t5encoder", "jais", "nemotron", "nemotron_h",
  "exaone", "exaone4", "rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7", "granite", "granitemoe",
  "granitehybrid", "chameleon", "solar", "wavtokenizer-dec", "plm", "bailingmoe", "bailingmoe2",
  "dots1", "arcee", "afmoe", "ernie4_5", "ernie4_5-moe", "hunyuan-moe", "hunyuan-dense", "smollm3",
  "gpt-oss", "lfm2", "lfm2moe", "dream", "smallthinker", "llada", "llada-moe", "seed_oss",
  "grovemoe", "apertus", "minimax-m2", "cogvlm", "rnd1", "pangu-embedded", "mistral3",
];
const runnable = new Set(LLAMACPP_ARCHITECTURES);

/** GGUF versions llama.cpp's loader accepts: 1 was dropped in 2023, and nothing newer exists. */
export const GGUF_VERSIONS_READ: readonly number[] = [2, 3];

/**
 * A parsed GGUF header: the metadata map as `@huggingface/gguf` returns it (numbers may be
 * bigint), and the parameter count when the parser computed one from the tensor list. Or the
 * parser's error when the file is not GGUF at all.
 */
export type GgufHeader = { metadata: Record<string, unknown>; parameterCount?: number } | { error: string };

/** Whether llama.cpp on the nodes can load this file, and the shape the memory estimate uses. */
export function ggufVerdict(header: GgufHeader): GgufVerdict {
  if ("error" in header) return { servable: false, reason: "not a GGUF file", summary: null };
  const { metadata } = header;
  const summary = ggufSummary(metadata, header.parameterCount);
  const refuse = (reason: string): GgufVerdict => ({ servable: false, reason, summary });

  const version = integer(metadata.version);
  if (version !== null && !GGUF_VERSIONS_READ.includes(version)) {
    return refuse(`GGUF version ${version} is not read by llama.cpp (it reads 2 and 3)`);
  }
  // gguf-split numbers its parts from 0, and only part 1 carries what llama.cpp needs to find
  // the others; pointed at any other part it fails to load.
  const part = integer(metadata["split.no"]);
  if (part !== null && part > 0) {
    const of = integer(metadata["split.count"]);
    const which = of === null ? `part ${part + 1}` : `part ${part + 1} of ${of}`;
    return refuse(`this is ${which} of a split model; serve part 1`);
  }
  const architecture = summary.architecture;
  if (architecture === null) return refuse("the header names no architecture");
  if (!runnable.has(architecture)) return refuse(`llama.cpp does not run the "${architecture}" architecture`);
  return { servable: true, reason: null, summary };
}

/** What the header says about the model's shape, as written there: null where it says nothing. */
export function ggufSummary(metadata: Record<string, unknown>, parameterCount?: number): GgufSummary {
  const architecture =
    typeof metadata["general.architecture"] === "string" ? metadata["general.architecture"] : null;
  const arch = (key: string) => (architecture === null ? null : integer(metadata[`${architecture}.${key}`]));
  const count = parameterCount ?? integer(metadata["general.parameter_count"]);
  return {
    architecture,
    blockCount: arch("block_count"),
    headCount: arch("attention.head_count"),
    headCountKV: arch("attention.head_count_kv"),
    embeddingLength: arch("embedding_length"),
    keyLength: arch("attention.key_length"),
    valueLength: arch("attention.value_length"),
    contextLength: arch("context_length"),
    fileType: integer(metadata["general.file_type"]),
    parameterCount: count !== undefined && count !== null && Number.isFinite(count) ? count : null,
  };
}

/**
 * KV cache bytes per token of context, f16 (SPEC §2.2.5), or 0 when the header does not say
 * enough. Grouped-query models name fewer KV heads than query heads; older headers name only
 * `head_count`, which is then the KV count too.
 */
export function kvBytesPerToken(summary: GgufSummary | null): number {
  if (summary === null) return 0;
  const { blockCount, headCount, embeddingLength } = summary;
  const kvHeads = summary.headCountKV ?? headCount;
  const perHead = headCount && embeddingLength ? Math.floor(embeddingLength / headCount) : null;
  const keyLength = summary.keyLength ?? perHead;
  const valueLength = summary.valueLength ?? perHead;
  if (!blockCount || !kvHeads || !keyLength || !valueLength) return 0;
  return blockCount * kvHeads * (keyLength + valueLength) * 2;
}

/** The KV heads the estimate counts: `head_count_kv`, else `head_count`. */
export function kvHeadsOf(summary: GgufSummary): number | null {
  return summary.headCountKV ?? summary.headCount;
}

/**
 * A whole number from a header value. Some hybrid architectures write per-layer lists (0 for
 * their recurrent layers); those count as their largest entry, since over-estimating the cache
 * is safer than not estimating it.
 */
function integer(value: unknown): number | null {
  if (typeof value === "bigint") {
    return value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
  }
  if (typeof value === "number") return Number.isSafeInteger(value) ? value : null;
  if (Array.isArray(value)) {
    let largest: number | null = null;
    for (const entry of value) {
      const n = integer(entry);
      if (n !== null && (largest === null || n > largest)) largest = n;
    }
    return largest;
  }
  return null;
}

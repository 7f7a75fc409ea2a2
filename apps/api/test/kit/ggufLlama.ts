import { GGUFValueType } from "@huggingface/gguf";
import {
  type GgufFileSpec,
  type GgufKv,
  type GgufTensor,
  ggufHeaderBytes,
  writeGgufFile,
} from "@llmgw/simulation";

// A tiny llama-architecture model that llama.cpp really loads and runs: random F32 weights from a
// seeded generator and a byte-level SentencePiece vocabulary, a few hundred kB in all. Its text is
// gibberish; what it is for is real inference and real token counts in tests.

export type TinyLlamaOptions = {
  /** Seeds the weights: one seed, one file, byte for byte. */
  seed?: number;
  blockCount?: number;
  embeddingLength?: number;
  feedForwardLength?: number;
  headCount?: number;
  contextLength?: number;
};

const SPECIALS = ["<unk>", "<s>", "</s>"] as const;
// llama.cpp's token types.
const NORMAL = 1;
const UNKNOWN = 2;
const CONTROL = 3;
const BYTE = 6;

/**
 * The vocabulary: <unk>, <s>, </s>, the 256 byte tokens `<0x00>`…`<0xFF>` SentencePiece falls back
 * to, and "▁", SentencePiece's space, which a byte token would not turn back into " ".
 */
export function byteVocabulary(): { tokens: string[]; types: number[] } {
  const bytes = Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
  return {
    tokens: [...SPECIALS, ...bytes, "\u2581"],
    types: [UNKNOWN, CONTROL, CONTROL, ...bytes.map(() => BYTE), NORMAL],
  };
}

/** The file's description, tensors and their data included; `writeGgufFile` writes it. */
export function tinyLlama(options: TinyLlamaOptions = {}): GgufFileSpec {
  const {
    seed = 16,
    blockCount = 2,
    embeddingLength: embd = 64,
    feedForwardLength: ff = 128,
    headCount = 4,
    contextLength = 256,
  } = options;
  const { tokens, types } = byteVocabulary();
  const random = mulberry32(seed);
  const matrix = (name: string, cols: number, rows: number, rowScale?: (row: number) => number) => {
    const data = new Float32Array(cols * rows);
    // Uniform in ±1/√cols keeps each layer's output near unit scale, so nothing overflows.
    const scale = 1 / Math.sqrt(cols);
    for (let i = 0; i < data.length; i++) {
      data[i] = (random() * 2 - 1) * scale * (rowScale?.(Math.floor(i / cols)) ?? 1);
    }
    return { name, shape: [cols, rows], data };
  };
  const ones = (name: string): GgufTensor => ({ name, shape: [embd], data: new Float32Array(embd).fill(1) });

  const tensorList: GgufTensor[] = [matrix("token_embd.weight", embd, tokens.length)];
  for (let b = 0; b < blockCount; b++) {
    tensorList.push(
      ones(`blk.${b}.attn_norm.weight`),
      matrix(`blk.${b}.attn_q.weight`, embd, embd),
      matrix(`blk.${b}.attn_k.weight`, embd, embd),
      matrix(`blk.${b}.attn_v.weight`, embd, embd),
      matrix(`blk.${b}.attn_output.weight`, embd, embd),
      ones(`blk.${b}.ffn_norm.weight`),
      matrix(`blk.${b}.ffn_gate.weight`, embd, ff),
      matrix(`blk.${b}.ffn_up.weight`, embd, ff),
      matrix(`blk.${b}.ffn_down.weight`, ff, embd),
    );
  }
  // The control tokens' logits stay 0 and printable ASCII's are louder, so a greedy reply is
  // mostly readable bytes and never ends at </s> before it starts.
  const printable = (row: number) => {
    if (row < SPECIALS.length) return 0;
    return isPrintable(row - SPECIALS.length) || row === tokens.length - 1 ? 4 : 1;
  };
  tensorList.push(ones("output_norm.weight"), matrix("output.weight", embd, tokens.length, printable));

  const metadata: GgufKv[] = [
    ["general.alignment", GGUFValueType.UINT32, 32],
    ["llama.feed_forward_length", GGUFValueType.UINT32, ff],
    ["llama.rope.dimension_count", GGUFValueType.UINT32, embd / headCount],
    ["llama.rope.freq_base", GGUFValueType.FLOAT32, 10_000],
    ["llama.attention.layer_norm_rms_epsilon", GGUFValueType.FLOAT32, 1e-5],
    ["llama.vocab_size", GGUFValueType.UINT32, tokens.length],
    ["tokenizer.ggml.model", GGUFValueType.STRING, "llama"],
    // The engine writes the prompt itself; a space llama.cpp put before it would not come back.
    ["tokenizer.ggml.add_space_prefix", GGUFValueType.BOOL, 0],
    ["tokenizer.ggml.tokens", GGUFValueType.ARRAY, { items: GGUFValueType.STRING, values: tokens }],
    [
      "tokenizer.ggml.scores",
      GGUFValueType.ARRAY,
      { items: GGUFValueType.FLOAT32, values: tokens.map(() => 0) },
    ],
    ["tokenizer.ggml.token_type", GGUFValueType.ARRAY, { items: GGUFValueType.INT32, values: types }],
    ["tokenizer.ggml.unknown_token_id", GGUFValueType.UINT32, 0],
    ["tokenizer.ggml.bos_token_id", GGUFValueType.UINT32, 1],
    ["tokenizer.ggml.eos_token_id", GGUFValueType.UINT32, 2],
    ["tokenizer.ggml.add_bos_token", GGUFValueType.BOOL, 1],
  ];
  const spec: GgufFileSpec = {
    architecture: "llama",
    name: "tiny-llama",
    blockCount,
    headCount,
    headCountKV: headCount,
    embeddingLength: embd,
    contextLength,
    fileType: 0, // all F32
    parameterCount: tensorList.reduce((sum, t) => sum + (t.data?.length ?? 0), 0),
    tensors: tensorList,
    metadata,
    weightsBytes: 0,
  };
  const { header, dataBytes } = ggufHeaderBytes(spec);
  return { ...spec, weightsBytes: header.length + dataBytes };
}

/** Writes the tiny model to `path`; returns its size in bytes. */
export async function writeTinyLlamaGguf(path: string, options: TinyLlamaOptions = {}): Promise<number> {
  const spec = tinyLlama(options);
  await writeGgufFile(path, spec);
  return spec.weightsBytes;
}

function isPrintable(byte: number): boolean {
  return byte >= 0x20 && byte < 0x7f;
}

/** A small seeded generator (mulberry32): uniform in [0, 1). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

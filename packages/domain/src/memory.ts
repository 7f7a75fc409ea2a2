import { kvBytesPerToken, kvHeadsOf } from "./gguf";
import { DEFAULT_CTX_POOL, type GgufSummary } from "./schemas";

const GiB = 1024 ** 3;

export interface MemoryEstimate {
  minMemoryGB: number;
  /** How the figure was arrived at, for the wizard to show beside it. */
  memoryBasis: string;
}

export const FLAT_MEMORY_BASIS = "weights plus half again plus two";

/**
 * The host memory a replica asks for (SPEC §2.2.5). Filled in rather than left blank: a blank
 * requirement makes every ready node a candidate, and the first one picked is the one that gets
 * OOM-killed.
 *
 * With a usable GGUF header the figure comes from the model's own shape: its KV cache for the
 * pool ranges from under half a gigabyte to over five across common models at the same 16k,
 * a spread the flat "half again" cannot see. The engine share is 1 GiB plus 5% of the weights
 * (compute buffers grow with the model).
 */
export function memoryEstimate(input: {
  weightsBytes: number;
  summary: GgufSummary | null;
  ctxPool?: number;
}): MemoryEstimate {
  const weights = Math.max(0, input.weightsBytes);
  const ctxPool = input.ctxPool ?? DEFAULT_CTX_POOL;
  const perToken = kvBytesPerToken(input.summary);
  if (input.summary !== null && perToken > 0 && weights > 0) {
    const kv = ctxPool * perToken;
    const engine = GiB + Math.floor(weights / 20);
    const layers = input.summary.blockCount ?? 0;
    const kvHeads = kvHeadsOf(input.summary) ?? 0;
    return {
      minMemoryGB: Math.ceil((weights + kv + engine) / GiB),
      memoryBasis:
        `weights ${gib(weights)} GB + KV cache ${gib(kv)} GB for ${ctxPool} tokens ` +
        `(${layers} layers × ${kvHeads} KV heads) + ${gib(engine)} GB for the engine`,
    };
  }
  // Half again covers a KV pool, which grows with the same things the weights do; the two is
  // the engine and the page cache it will not get back. An estimate, and the field is editable.
  return {
    minMemoryGB: weights > 0 ? Math.floor((weights / GiB) * 1.5) + 2 : 0,
    memoryBasis: FLAT_MEMORY_BASIS,
  };
}

function gib(bytes: number): string {
  return (bytes / GiB).toFixed(1);
}

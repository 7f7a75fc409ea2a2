import { open, stat } from "node:fs/promises";
import { type GGUFTensorInfo, gguf } from "@huggingface/gguf";
import type { GgufHeader } from "@llmgw/domain";

/** Versions @huggingface/gguf parses; whether the engine reads them is the verdict rule's call. */
const READABLE_VERSIONS = new Set([1, 2, 3]);

/**
 * Arrays longer than this (the tokenizer's vocabulary, scores, merges) are left out of the metadata;
 * per-layer arrays are shorter and kept. No rule reads the long ones, and kept they would make every
 * cached header megabytes and every JSON answer that carries one slow.
 */
const MAX_ARRAY_KEPT = 1024;

/**
 * Reads the header of a GGUF file on disk: the metadata key/values and the tensor infos, never the
 * tensor data. A file that is not GGUF, is cut short or cannot be read comes back as `{ error }`
 * rather than a throw, because a bad file in the mirror is data the operator must see.
 */
export async function readGgufHeader(path: string): Promise<GgufHeader> {
  try {
    const { size } = await stat(path);
    const start = await readStart(path, 8);
    if (start.length < 4 || start.toString("latin1", 0, 4) !== "GGUF") {
      return { error: "not a GGUF file: it does not start with the GGUF magic" };
    }
    if (start.length < 8) return { error: `truncated GGUF file: only ${size} bytes` };
    const version = versionOf(start);
    // A version the parser does not know is still a GGUF file saying which version it is: the
    // verdict names the version rather than calling the file "not GGUF".
    if (!READABLE_VERSIONS.has(version)) return { metadata: { version } };
    const parsed = await gguf(path, { allowLocalFile: true });
    // The library reads in 2 MB chunks and pads past the end of the file with zeros, so a header cut
    // short can parse "successfully" into garbage; the only honest test is whether it ended in the file.
    const headerEnd = parsed.tensorInfoByteRange[1];
    if (headerEnd > size) {
      return { error: `truncated GGUF file: the header needs ${headerEnd} bytes and the file has ${size}` };
    }
    // A download cut off after the header still looks fine up to here. Sizing every tensor needs
    // each quantisation's block size; where the last one starts is enough to catch a cut file.
    const lastTensorStart = parsed.tensorInfos.reduce(
      (last, tensor) => Math.max(last, Number(tensor.offset)),
      -1,
    );
    if (lastTensorStart >= 0 && Number(parsed.tensorDataOffset) + lastTensorStart >= size) {
      return { error: `truncated GGUF file: its tensors run past the end of the file (${size} bytes)` };
    }
    return headerOf(parsed);
  } catch (err) {
    return { error: describe(err) };
  }
}

/**
 * The domain's header from what the parser read, wherever it read it (a file here, a Hub file by
 * Range in hub/): metadata JSON can carry, and the parameter count from the tensor shapes.
 */
export function headerOf(parsed: { metadata: object; tensorInfos: GGUFTensorInfo[] }): GgufHeader {
  const metadata = plainMetadata(parsed.metadata);
  const parameterCount = countParameters(metadata, parsed.tensorInfos);
  return parameterCount === null ? { metadata } : { metadata, parameterCount };
}

/** What went wrong reading a header, in words (a parser's RangeError is a header cut short). */
export function describeHeaderError(err: unknown): string {
  return describe(err);
}

async function readStart(path: string, bytes: number): Promise<Buffer> {
  const file = await open(path, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await file.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** GGUF has no endianness flag: a big-endian file shows up as a little-endian version with the low half zero. */
function versionOf(start: Buffer): number {
  const little = start.readUInt32LE(4);
  return (little & 0xffff) !== 0 ? little : start.readUInt32BE(4);
}

/**
 * The parser returns u64/i64 values (and version-2+ counts) as bigint, which JSON cannot carry;
 * every number a rule reads fits a double, so they become numbers here, once.
 */
function plainMetadata(metadata: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (Array.isArray(value) && value.length > MAX_ARRAY_KEPT) continue;
    out[key] = plainValue(value);
  }
  return out;
}

/**
 * Few converters write `general.parameter_count`, but the tensor shapes in the header say it
 * exactly. Not for a split file, whose first part declares only some of the tensors.
 */
function countParameters(metadata: Record<string, unknown>, tensors: GGUFTensorInfo[]): number | null {
  const splitCount = metadata["split.count"];
  if (tensors.length === 0 || (typeof splitCount === "number" && splitCount > 1)) return null;
  return tensors.reduce(
    (sum, tensor) => sum + tensor.shape.reduce((product, dim) => product * Number(dim), 1),
    0,
  );
}

function plainValue(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(plainValue);
  return value;
}

function describe(err: unknown): string {
  // A RangeError is the parser reading past the bytes it has: the header is cut short or lies about a length.
  if (err instanceof RangeError) return `truncated or malformed GGUF header: ${err.message}`;
  if (err instanceof Error) return err.message;
  return String(err);
}

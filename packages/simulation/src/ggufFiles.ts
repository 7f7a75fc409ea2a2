import { mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { GGUFValueType } from "@huggingface/gguf";

/** What a generated GGUF file says about its model. Tests and the demo describe files with this. */
export interface GgufFileSpec {
  architecture: string;
  blockCount: number;
  headCount: number;
  headCountKV?: number;
  embeddingLength: number;
  keyLength?: number;
  valueLength?: number;
  contextLength: number;
  fileType?: number;
  parameterCount?: number;
  /** Default 3. 1 writes 32-bit counts and lengths as that version did; others are written as 3 is. */
  ggufVersion?: number;
  /** Written as llama.cpp's gguf-split does: `split.no` counts from 0, so part 1 of 3 is `{ no: 0, count: 3 }`. */
  split?: { no: number; count: number };
  /** Tensor infos to declare (F32), dimensions in ggml's order (the row length first). Their data
   * lies in the sparse tail unless given. Default none. */
  tensors?: GgufTensor[];
  /** More key/values, written after the ones above: a real model's hyperparameters, its tokenizer. */
  metadata?: GgufKv[];
  name?: string;
  /** The size of the whole file. Everything after the header is a hole: no disk is used. */
  weightsBytes: number;
}

export type GgufTensor = { name: string; shape: number[]; data?: Float32Array };
/** An array value: the items' type, then the items. */
export type GgufArray = { items: GGUFValueType; values: readonly (string | number)[] };
export type GgufKv = [key: string, type: GGUFValueType, value: string | number | GgufArray];

const ALIGNMENT = 32;
const WIDTH: Partial<Record<GGUFValueType, number>> = {
  [GGUFValueType.BOOL]: 1,
  [GGUFValueType.UINT16]: 2,
  [GGUFValueType.UINT64]: 8,
};
const F32 = 0;

/**
 * Writes a real GGUF header followed by a sparse tail, so a "4.7 GB model" costs a few kilobytes;
 * tensors that carry their data have it written in place.
 */
export async function writeGgufFile(path: string, spec: GgufFileSpec): Promise<void> {
  const { header, dataBytes, offsets } = ggufHeaderBytes(spec);
  if (spec.weightsBytes < header.length + dataBytes) {
    throw new RangeError(`weightsBytes ${spec.weightsBytes} is smaller than the header and tensor data`);
  }
  const parts: { at: number; bytes: Uint8Array }[] = [{ at: 0, bytes: header }];
  (spec.tensors ?? []).forEach((tensor, i) => {
    if (!tensor.data) return;
    if (tensor.data.length !== elementsOf(tensor)) {
      throw new RangeError(`${tensor.name}: ${tensor.data.length} values for shape [${tensor.shape}]`);
    }
    const bytes = new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
    parts.push({ at: header.length + (offsets[i] ?? 0), bytes });
  });
  await writeSparse(path, parts, spec.weightsBytes);
}

/** A file that is not GGUF whatever its name says: for the verdict's "not a GGUF file". */
export async function writeNotGguf(path: string, bytes: number): Promise<void> {
  const text = Buffer.from("this is not a GGUF file\n");
  await writeSparse(path, [{ at: 0, bytes: text.subarray(0, Math.min(bytes, text.length)) }], bytes);
}

/**
 * A safetensors file as the format has it (8-byte little-endian header length, JSON header, data),
 * with one U8 tensor covering the sparse tail, so engines' file sniffing would accept it.
 */
export async function writeSafetensorsFile(path: string, weightsBytes: number): Promise<void> {
  let dataBytes = weightsBytes;
  let json = "";
  // The header's length depends on the data size written inside it; two rounds settle it.
  for (let round = 0; round < 2; round++) {
    json = JSON.stringify({
      __metadata__: { format: "pt" },
      weight: { dtype: "U8", shape: [dataBytes], data_offsets: [0, dataBytes] },
    });
    json = json.padEnd(Math.ceil(json.length / 8) * 8, " ");
    dataBytes = weightsBytes - 8 - json.length;
  }
  if (dataBytes < 0) throw new RangeError(`weightsBytes ${weightsBytes} is smaller than the header`);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  await writeSparse(path, [{ at: 0, bytes: Buffer.concat([length, Buffer.from(json)]) }], weightsBytes);
}

async function writeSparse(path: string, parts: { at: number; bytes: Uint8Array }[], size: number) {
  await mkdir(dirname(path), { recursive: true });
  const file = await open(path, "w");
  try {
    for (const { at, bytes } of parts) await file.write(bytes, 0, bytes.length, at);
    // Growing a file with truncate leaves a hole: the size is real, the blocks are not.
    await file.truncate(size);
  } finally {
    await file.close();
  }
}

/** The header (padded to the alignment), the tensor data's size, and each tensor's offset in it. */
export function ggufHeaderBytes(spec: GgufFileSpec): {
  header: Buffer;
  dataBytes: number;
  offsets: number[];
} {
  const version = spec.ggufVersion ?? 3;
  const out = new HeaderBytes(version === 1);
  const kvs = metadataOf(spec);
  const tensors = spec.tensors ?? [];

  out.raw(Buffer.from("GGUF", "latin1"));
  out.u32(version);
  out.size(tensors.length);
  out.size(kvs.length);
  for (const [key, type, value] of kvs) {
    out.string(key);
    out.u32(type);
    out.value(type, value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const tensor of tensors) {
    out.string(tensor.name);
    out.u32(tensor.shape.length);
    for (const dim of tensor.shape) out.size(dim);
    out.u32(F32);
    out.u64(offset);
    offsets.push(offset);
    offset = Math.ceil((offset + elementsOf(tensor) * 4) / ALIGNMENT) * ALIGNMENT;
  }
  // Tensor data starts at the next aligned offset; the padding is part of the header.
  const header = out.bytes();
  const padded = Buffer.alloc(Math.ceil(header.length / ALIGNMENT) * ALIGNMENT);
  header.copy(padded);
  return { header: padded, dataBytes: offset, offsets };
}

function elementsOf(tensor: GgufTensor): number {
  return tensor.shape.reduce((product, dim) => product * dim, 1);
}

function metadataOf(spec: GgufFileSpec): GgufKv[] {
  const arch = spec.architecture;
  const kvs: GgufKv[] = [
    ["general.architecture", GGUFValueType.STRING, arch],
    ["general.name", GGUFValueType.STRING, spec.name ?? arch],
    [`${arch}.block_count`, GGUFValueType.UINT32, spec.blockCount],
    [`${arch}.context_length`, GGUFValueType.UINT32, spec.contextLength],
    [`${arch}.embedding_length`, GGUFValueType.UINT32, spec.embeddingLength],
    [`${arch}.attention.head_count`, GGUFValueType.UINT32, spec.headCount],
  ];
  const optional: [string, GGUFValueType, number | undefined][] = [
    [`${arch}.attention.head_count_kv`, GGUFValueType.UINT32, spec.headCountKV],
    [`${arch}.attention.key_length`, GGUFValueType.UINT32, spec.keyLength],
    [`${arch}.attention.value_length`, GGUFValueType.UINT32, spec.valueLength],
    ["general.file_type", GGUFValueType.UINT32, spec.fileType],
    ["general.parameter_count", GGUFValueType.UINT64, spec.parameterCount],
    ["split.no", GGUFValueType.UINT16, spec.split?.no],
    ["split.count", GGUFValueType.UINT16, spec.split?.count],
    ["split.tensors.count", GGUFValueType.INT32, spec.split ? (spec.tensors?.length ?? 0) : undefined],
  ];
  for (const [key, type, value] of optional) {
    if (value !== undefined) kvs.push([key, type, value]);
  }
  return [...kvs, ...(spec.metadata ?? [])];
}

/** Little-endian GGUF encoding; version 1 wrote counts and lengths in 32 bits, later versions in 64. */
class HeaderBytes {
  private readonly chunks: Buffer[] = [];
  constructor(private readonly narrowSizes: boolean) {}

  raw(bytes: Buffer): void {
    this.chunks.push(bytes);
  }
  u32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.chunks.push(b);
  }
  u64(n: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.chunks.push(b);
  }
  size(n: number): void {
    if (this.narrowSizes) this.u32(n);
    else this.u64(n);
  }
  string(s: string): void {
    const bytes = Buffer.from(s, "utf8");
    this.size(bytes.length);
    this.chunks.push(bytes);
  }
  value(type: GGUFValueType, value: string | number | GgufArray): void {
    if (typeof value === "object") {
      this.u32(value.items);
      this.size(value.values.length);
      for (const item of value.values) this.value(value.items, item);
      return;
    }
    if (typeof value === "string") {
      this.string(value);
      return;
    }
    const b = Buffer.alloc(WIDTH[type] ?? 4);
    if (type === GGUFValueType.BOOL) b.writeUInt8(value ? 1 : 0);
    else if (type === GGUFValueType.UINT16) b.writeUInt16LE(value);
    else if (type === GGUFValueType.UINT64) b.writeBigUInt64LE(BigInt(value));
    else if (type === GGUFValueType.INT32) b.writeInt32LE(value);
    else if (type === GGUFValueType.FLOAT32) b.writeFloatLE(value);
    else b.writeUInt32LE(value);
    this.chunks.push(b);
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

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
  /** Tensor infos to declare (F32); their data lies in the sparse tail. Default none. */
  tensors?: { name: string; shape: number[] }[];
  name?: string;
  /** The size of the whole file. Everything after the header is a hole: no disk is used. */
  weightsBytes: number;
}

const ALIGNMENT = 32;
const F32 = 0;

type Kv = [key: string, type: GGUFValueType, value: string | number];

/** Writes a real GGUF header followed by a sparse tail, so a "4.7 GB model" costs a few kilobytes. */
export async function writeGgufFile(path: string, spec: GgufFileSpec): Promise<void> {
  const { header, dataBytes } = ggufHeaderBytes(spec);
  if (spec.weightsBytes < header.length + dataBytes) {
    throw new RangeError(`weightsBytes ${spec.weightsBytes} is smaller than the header and tensor data`);
  }
  await writeSparse(path, header, spec.weightsBytes);
}

/** A file that is not GGUF whatever its name says: for the verdict's "not a GGUF file". */
export async function writeNotGguf(path: string, bytes: number): Promise<void> {
  const text = Buffer.from("this is not a GGUF file\n");
  await writeSparse(path, text.subarray(0, Math.min(bytes, text.length)), bytes);
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
  await writeSparse(path, Buffer.concat([length, Buffer.from(json)]), weightsBytes);
}

async function writeSparse(path: string, head: Uint8Array, size: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const file = await open(path, "w");
  try {
    await file.write(head, 0, head.length, 0);
    // Growing a file with truncate leaves a hole: the size is real, the blocks are not.
    await file.truncate(size);
  } finally {
    await file.close();
  }
}

export function ggufHeaderBytes(spec: GgufFileSpec): { header: Buffer; dataBytes: number } {
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
  for (const tensor of tensors) {
    out.string(tensor.name);
    out.u32(tensor.shape.length);
    for (const dim of tensor.shape) out.size(dim);
    out.u32(F32);
    out.u64(offset);
    const bytes = tensor.shape.reduce((product, dim) => product * dim, 4);
    offset = Math.ceil((offset + bytes) / ALIGNMENT) * ALIGNMENT;
  }
  // Tensor data starts at the next aligned offset; the padding is part of the header.
  const header = out.bytes();
  const padded = Buffer.alloc(Math.ceil(header.length / ALIGNMENT) * ALIGNMENT);
  header.copy(padded);
  return { header: padded, dataBytes: offset };
}

function metadataOf(spec: GgufFileSpec): Kv[] {
  const arch = spec.architecture;
  const kvs: Kv[] = [
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
  return kvs;
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
  value(type: GGUFValueType, value: string | number): void {
    if (typeof value === "string") {
      this.string(value);
      return;
    }
    const b = Buffer.alloc(type === GGUFValueType.UINT16 ? 2 : type === GGUFValueType.UINT64 ? 8 : 4);
    if (type === GGUFValueType.UINT16) b.writeUInt16LE(value);
    else if (type === GGUFValueType.UINT64) b.writeBigUInt64LE(BigInt(value));
    else if (type === GGUFValueType.INT32) b.writeInt32LE(value);
    else b.writeUInt32LE(value);
    this.chunks.push(b);
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

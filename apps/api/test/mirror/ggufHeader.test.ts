import { readFile, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type GgufHeader, ggufSummary, ggufVerdict } from "@llmgw/domain";
import { ggufHeaderBytes, llama3_8b, writeGgufFile, writeNotGguf } from "@llmgw/simulation";
import { describe, expect, it } from "vitest";
import { readGgufHeader } from "../../src/mirror/ggufHeader";
import { tinyLlama, writeTinyLlamaGguf } from "../kit/ggufLlama";
import { diskKilobytes, GB, tempDir } from "./fixtures";

function metadataOf(header: GgufHeader): Record<string, unknown> {
  if ("error" in header) throw new Error(`expected a header, got: ${header.error}`);
  return header.metadata;
}

describe("readGgufHeader over files from writeGgufFile", () => {
  it("reads a 4.7 GB file's header while the file takes almost no disk", async () => {
    const path = join(await tempDir(), "llama3-8b.Q4_K_M.gguf");
    await writeGgufFile(path, llama3_8b({ weightsBytes: 4.7 * GB }));

    expect((await stat(path)).size).toBe(4.7 * GB);
    expect(diskKilobytes(path)).toBeLessThan(64);
    const metadata = metadataOf(await readGgufHeader(path));
    expect(metadata).toMatchObject({
      version: 3,
      tensor_count: 0,
      "general.architecture": "llama",
      "llama.block_count": 32,
      "llama.attention.head_count_kv": 8,
      "general.parameter_count": 8_030_261_248,
    });
    // JSON must be able to carry it: the parser's bigints are gone.
    expect(Object.values(metadata).some((value) => typeof value === "bigint")).toBe(false);
  });

  it("round-trips every summary field", async () => {
    const path = join(await tempDir(), "m.gguf");
    await writeGgufFile(path, llama3_8b({ architecture: "qwen2", keyLength: 128, valueLength: 96 }));

    expect(ggufSummary(metadataOf(await readGgufHeader(path)))).toEqual({
      architecture: "qwen2",
      blockCount: 32,
      headCount: 32,
      headCountKV: 8,
      embeddingLength: 4096,
      keyLength: 128,
      valueLength: 96,
      contextLength: 8192,
      fileType: 15,
      parameterCount: 8_030_261_248,
    });
  });

  it.each([1, 2, 3])("reports GGUF version %i as the version field", async (ggufVersion) => {
    const path = join(await tempDir(), "m.gguf");
    await writeGgufFile(path, llama3_8b({ ggufVersion, weightsBytes: 1_000_000 }));

    expect(metadataOf(await readGgufHeader(path))).toMatchObject({
      version: ggufVersion,
      "llama.block_count": 32,
    });
  });

  it("writes split parts as gguf-split does, counting from 0", async () => {
    const path = join(await tempDir(), "m-00002-of-00003.gguf");
    await writeGgufFile(path, llama3_8b({ split: { no: 1, count: 3 } }));

    expect(metadataOf(await readGgufHeader(path))).toMatchObject({ "split.no": 1, "split.count": 3 });
  });

  it("counts the parameters from the tensor shapes, except for a split file's part", async () => {
    const dir = await tempDir();
    const tensors = [
      { name: "token_embd.weight", shape: [4096, 1000] },
      { name: "output_norm.weight", shape: [4096] },
    ];
    const spec = llama3_8b({ parameterCount: undefined, tensors, weightsBytes: 100_000_000 });
    await writeGgufFile(join(dir, "one.gguf"), spec);
    await writeGgufFile(join(dir, "part.gguf"), { ...spec, split: { no: 0, count: 2 } });

    const one = await readGgufHeader(join(dir, "one.gguf"));
    expect(one).toEqual({
      metadata: expect.objectContaining({ tensor_count: 2 }),
      parameterCount: 4096 * 1001,
    });
    expect(await readGgufHeader(join(dir, "part.gguf"))).not.toHaveProperty("parameterCount");
  });

  it("refuses to write a file too small for its own header", async () => {
    const path = join(await tempDir(), "m.gguf");
    await expect(writeGgufFile(path, llama3_8b({ weightsBytes: 10 }))).rejects.toThrow(RangeError);
  });
});

describe("readGgufHeader on files that are not good GGUF", () => {
  it("says a file without the magic is not GGUF", async () => {
    const path = join(await tempDir(), "fake.gguf");
    await writeNotGguf(path, 2 * GB);

    expect(await readGgufHeader(path)).toEqual({ error: expect.stringMatching(/not a GGUF file/) });
  });

  it.each([0, 3])("says a %i-byte file is not GGUF", async (bytes) => {
    const path = join(await tempDir(), "tiny.gguf");
    await writeFile(path, Buffer.from("GGUF").subarray(0, bytes));

    expect(await readGgufHeader(path)).toEqual({ error: expect.stringMatching(/not a GGUF file/) });
  });

  it("hands on the version of a GGUF file it cannot parse further", async () => {
    const path = join(await tempDir(), "future.gguf");
    await writeGgufFile(path, llama3_8b({ ggufVersion: 4, weightsBytes: 1_000_000 }));

    expect(await readGgufHeader(path)).toEqual({ metadata: { version: 4 } });
  });

  it.each([6, 30, 0.5, 0.9])("says a header cut short (at %s) is truncated", async (cut) => {
    const path = join(await tempDir(), "cut.gguf");
    const spec = llama3_8b({ tensors: [{ name: "t", shape: [8] }], weightsBytes: 1_000_000 });
    await writeGgufFile(path, spec);
    const headerLength = ggufHeaderBytes(spec).header.length;
    await truncate(path, cut < 1 ? Math.floor(headerLength * cut) : cut);

    expect(await readGgufHeader(path)).toEqual({ error: expect.stringMatching(/truncated/) });
  });

  it("says a file cut off after its header is truncated", async () => {
    const path = join(await tempDir(), "cut.gguf");
    const tensors = [
      { name: "a", shape: [1024] },
      { name: "b", shape: [1024] },
    ];
    const spec = llama3_8b({ tensors, weightsBytes: 1_000_000 });
    await writeGgufFile(path, spec);
    await truncate(path, ggufHeaderBytes(spec).header.length + 4096);

    expect(await readGgufHeader(path)).toEqual({ error: expect.stringMatching(/truncated.*tensors/) });
  });

  it("answers a missing file with an error, not a throw", async () => {
    const header = await readGgufHeader(join(await tempDir(), "gone.gguf"));
    expect(header).toEqual({ error: expect.stringMatching(/ENOENT/) });
  });
});

describe("the domain's verdict over headers read from disk", () => {
  it.each([
    ["a servable single file", llama3_8b(), true, null],
    ["GGUF version 1", llama3_8b({ ggufVersion: 1 }), false, /version 1/],
    ["GGUF version 4", llama3_8b({ ggufVersion: 4 }), false, /version 4/],
    ["split part 2", llama3_8b({ split: { no: 1, count: 3 } }), false, /part 2 of 3/],
    ["an architecture llama.cpp does not run", llama3_8b({ architecture: "mystery" }), false, /mystery/],
  ])("%s", async (_, spec, servable, reason) => {
    const path = join(await tempDir(), "m.gguf");
    await writeGgufFile(path, { ...spec, weightsBytes: 1_000_000 });

    const verdict = ggufVerdict(await readGgufHeader(path));

    expect(verdict.servable).toBe(servable);
    if (reason) expect(verdict.reason).toMatch(reason);
  });

  it("refuses a file that is not GGUF", async () => {
    const path = join(await tempDir(), "m.gguf");
    await writeNotGguf(path, 1000);

    expect(ggufVerdict(await readGgufHeader(path))).toMatchObject({ servable: false, summary: null });
  });
});

describe("the tiny llama model (real tensor data, for real inference in tests)", () => {
  it("is a servable llama GGUF of a few hundred kB, its tensors and tokenizer in the header", async () => {
    const path = join(await tempDir(), "tiny.gguf");
    const bytes = await writeTinyLlamaGguf(path);

    expect((await stat(path)).size).toBe(bytes);
    expect(bytes).toBeLessThan(1_000_000);
    const header = await readGgufHeader(path);
    expect(header).toMatchObject({
      metadata: {
        "general.architecture": "llama",
        "general.alignment": 32,
        "tokenizer.ggml.model": "llama",
        "llama.vocab_size": 260,
        tensor_count: 2 + 2 * 9 + 1,
      },
      parameterCount: tinyLlama().parameterCount,
    });
    expect(metadataOf(header)["tokenizer.ggml.tokens"]).toEqual(
      expect.arrayContaining(["<unk>", "<s>", "</s>", "<0x00>", "<0x0A>", "<0xFF>"]),
    );
    expect(ggufVerdict(header).servable).toBe(true);
  });

  it("is the same file for the same seed, another for another", async () => {
    const dir = await tempDir();
    const written = async (name: string, seed: number) => {
      await writeTinyLlamaGguf(join(dir, name), { seed });
      return readFile(join(dir, name));
    };

    const [one, again, two] = [
      await written("a.gguf", 1),
      await written("b.gguf", 1),
      await written("c.gguf", 2),
    ];

    expect(one.equals(again)).toBe(true);
    expect(one.equals(two)).toBe(false);
  });
});

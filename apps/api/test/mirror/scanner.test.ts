import { mkdir, rename, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { llama3_8b, writeGgufFile, writeNotGguf, writeSafetensorsFile } from "@llmgw/simulation";
import { describe, expect, it, vi } from "vitest";
import { readGgufHeader } from "../../src/mirror/ggufHeader";
import { createMirror } from "../../src/mirror/scanner";
import { GB, tempDir } from "./fixtures";

/** A mirror with one of each thing the layout can hold. */
async function populatedMirror() {
  const dir = await tempDir();
  await writeGgufFile(join(dir, "llama3", "q4", "llama3-8b.Q4_K_M.gguf"), llama3_8b());
  await writeSafetensorsFile(join(dir, "mistral", "fp16", "model-00001-of-00002.safetensors"), 5 * GB);
  await writeSafetensorsFile(join(dir, "mistral", "fp16", "model-00002-of-00002.safetensors"), 4 * GB);
  await writeFile(join(dir, "mistral", "fp16", "config.json"), "{}");
  await mkdir(join(dir, "qwen", "q8"), { recursive: true });
  await writeNotGguf(join(dir, "qwen", "q8", "qwen.gguf.part"), 1_000_000);
  await writeFile(join(dir, "qwen", "q8", "qwen.gguf.size"), "8000000000\n");
  await writeNotGguf(join(dir, "broken", "v1", "broken.gguf"), 1_000_000);
  await writeGgufFile(
    join(dir, "big", "v1", "big-00002-of-00003.gguf"),
    llama3_8b({ split: { no: 1, count: 3 } }),
  );
  return dir;
}

describe("Mirror.scan", () => {
  it("reports every version of the layout, sorted", async () => {
    const mirror = createMirror({ dir: await populatedMirror() });

    const versions = await mirror.scan();

    expect(versions.map((v) => `${v.model}/${v.version}`)).toEqual([
      "big/v1",
      "broken/v1",
      "llama3/q4",
      "mistral/fp16",
      "qwen/q8",
    ]);
    expect(mirror.list()).toEqual(versions);
  });

  it("summarises a single-file GGUF version from its header", async () => {
    const mirror = createMirror({ dir: await populatedMirror() });

    expect(await mirror.get("llama3", "q4")).toEqual({
      model: "llama3",
      version: "q4",
      files: [
        {
          file: "llama3-8b.Q4_K_M.gguf",
          bytesDone: 4.7 * GB,
          bytesTotal: 4.7 * GB,
          state: "complete",
          error: null,
          sha256: null,
        },
      ],
      gguf: expect.objectContaining({ architecture: "llama", blockCount: 32, headCountKV: 8 }),
    });
  });

  it("lists every file of a multi-file safetensors version, and no GGUF summary", async () => {
    const mirror = createMirror({ dir: await populatedMirror() });

    const version = await mirror.get("mistral", "fp16");

    expect(version?.files.map((f) => [f.file, f.bytesDone, f.state])).toEqual([
      ["config.json", 2, "complete"],
      ["model-00001-of-00002.safetensors", 5 * GB, "complete"],
      ["model-00002-of-00002.safetensors", 4 * GB, "complete"],
    ]);
    expect(version?.gguf).toBeNull();
  });

  it("reports a .part file as downloading, under its final name, sized by its .size sibling", async () => {
    const mirror = createMirror({ dir: await populatedMirror() });

    expect((await mirror.get("qwen", "q8"))?.files).toEqual([
      {
        file: "qwen.gguf",
        bytesDone: 1_000_000,
        bytesTotal: 8_000_000_000,
        state: "downloading",
        error: null,
        sha256: null,
      },
    ]);
    expect(await mirror.headerOf("qwen", "q8")).toBeNull();
  });

  it("leaves bytesTotal null without a .size file, or with nonsense in it", async () => {
    const dir = await tempDir();
    await writeNotGguf(join(dir, "a", "v", "x.gguf.part"), 10);
    await writeNotGguf(join(dir, "b", "v", "y.gguf.part"), 10);
    await writeFile(join(dir, "b", "v", "y.gguf.size"), "about 8 GB");
    const mirror = createMirror({ dir });

    const versions = await mirror.scan();

    expect(versions.flatMap((v) => v.files.map((f) => f.bytesTotal))).toEqual([null, null]);
  });

  it("gives a file that is not GGUF no summary, and its error through headerOf", async () => {
    const mirror = createMirror({ dir: await populatedMirror() });

    expect((await mirror.get("broken", "v1"))?.gguf).toBeNull();
    expect(await mirror.headerOf("broken", "v1")).toEqual({
      error: expect.stringMatching(/not a GGUF file/),
    });
  });

  it("reads a lone split part 2 as GGUF and hands its split keys to the verdict", async () => {
    const mirror = createMirror({ dir: await populatedMirror() });

    expect((await mirror.get("big", "v1"))?.gguf?.architecture).toBe("llama");
    expect(await mirror.headerOf("big", "v1")).toEqual({
      metadata: expect.objectContaining({ "split.no": 1, "split.count": 3 }),
    });
  });

  it("takes the header from the first .gguf file by name", async () => {
    const dir = await tempDir();
    await writeGgufFile(
      join(dir, "big", "v1", "big-00001-of-00002.gguf"),
      llama3_8b({ split: { no: 0, count: 2 } }),
    );
    await writeGgufFile(
      join(dir, "big", "v1", "big-00002-of-00002.gguf"),
      llama3_8b({ split: { no: 1, count: 2 } }),
    );

    const header = await createMirror({ dir }).headerOf("big", "v1");

    expect(header).toEqual({ metadata: expect.objectContaining({ "split.no": 0 }) });
  });

  it("has no header while the first .gguf file is still downloading", async () => {
    const dir = await tempDir();
    await writeNotGguf(join(dir, "big", "v1", "big-00001-of-00002.gguf.part"), 100);
    await writeGgufFile(
      join(dir, "big", "v1", "big-00002-of-00002.gguf"),
      llama3_8b({ split: { no: 1, count: 2 } }),
    );
    const mirror = createMirror({ dir });

    expect(await mirror.headerOf("big", "v1")).toBeNull();
    expect((await mirror.get("big", "v1"))?.gguf).toBeNull();
  });

  it("skips hidden files, empty versions, stray files and symlinks out of the mirror", async () => {
    const dir = await tempDir();
    const outside = await tempDir();
    await writeFile(join(outside, "secret.gguf"), "GGUF");
    await writeGgufFile(join(dir, "m", "v", "m.gguf"), llama3_8b({ weightsBytes: 1_000_000 }));
    await writeFile(join(dir, "m", "v", ".DS_Store"), "");
    await writeFile(join(dir, "m", "README.md"), "stray");
    await mkdir(join(dir, "m", "empty"));
    await mkdir(join(dir, ".cache", "v"), { recursive: true });
    await writeFile(join(dir, ".cache", "v", "x.gguf"), "");
    await symlink(join(outside, "secret.gguf"), join(dir, "m", "v", "escape.gguf"));
    await symlink(outside, join(dir, "m", "linked"));

    const versions = await createMirror({ dir }).scan();

    expect(versions.map((v) => [v.model, v.version, v.files.map((f) => f.file)])).toEqual([
      ["m", "v", ["m.gguf"]],
    ]);
  });

  it("follows a symlink that stays inside the mirror", async () => {
    const dir = await tempDir();
    await writeGgufFile(join(dir, "m", "v1", "m.gguf"), llama3_8b({ weightsBytes: 1_000_000 }));
    await mkdir(join(dir, "m", "v2"));
    await symlink(join(dir, "m", "v1", "m.gguf"), join(dir, "m", "v2", "m.gguf"));

    const mirror = createMirror({ dir });

    expect((await mirror.get("m", "v2"))?.gguf?.architecture).toBe("llama");
    expect(await mirror.filePath("m", "v2", "m.gguf")).toMatch(/m\/v1\/m\.gguf$/);
  });

  it("is empty when the mirror directory does not exist yet", async () => {
    const mirror = createMirror({ dir: join(await tempDir(), "not-yet") });

    expect(await mirror.scan()).toEqual([]);
    expect(await mirror.get("m", "v")).toBeNull();
  });
});

describe("Mirror header cache", () => {
  it("reads a header once while the file is unchanged, and again when it is replaced", async () => {
    const dir = await tempDir();
    const path = join(dir, "m", "v", "m.gguf");
    await writeGgufFile(path, llama3_8b({ blockCount: 32 }));
    const readHeader = vi.fn(readGgufHeader);
    const mirror = createMirror({ dir, readHeader });

    await mirror.scan();
    await mirror.scan();
    await mirror.headerOf("m", "v");
    expect(readHeader).toHaveBeenCalledTimes(1);

    await writeGgufFile(path, llama3_8b({ blockCount: 40 }));
    await utimes(path, new Date(), new Date(Date.now() + 5000));
    const [version] = await mirror.scan();
    expect(readHeader).toHaveBeenCalledTimes(2);
    expect(version?.gguf?.blockCount).toBe(40);
  });

  it("turns a reader that throws into a header error", async () => {
    const dir = await tempDir();
    await writeGgufFile(join(dir, "m", "v", "m.gguf"), llama3_8b());
    const mirror = createMirror({ dir, readHeader: () => Promise.reject(new Error("disk on fire")) });

    expect(await mirror.headerOf("m", "v")).toEqual({ error: expect.stringMatching(/disk on fire/) });
  });
});

describe("Mirror.filePath", () => {
  it("resolves a complete file of a version", async () => {
    const dir = await populatedMirror();
    const mirror = createMirror({ dir });

    expect(await mirror.filePath("llama3", "q4", "llama3-8b.Q4_K_M.gguf")).toMatch(/llama3\/q4\/llama3-8b/);
  });

  it.each([
    ["llama3", "q4", "missing.gguf"],
    ["llama3", "q4", "../q4/llama3-8b.Q4_K_M.gguf"],
    ["llama3", "..", "llama3"],
    ["..", "..", "etc"],
    ["llama3", "q4", "/etc/passwd"],
    ["llama3", "q4", "..\\..\\x"],
    ["llama3", "q4", "a\0b"],
    ["llama3", "", "x"],
    ["qwen", "q8", "qwen.gguf.part"],
    ["qwen", "q8", "qwen.gguf.size"],
    ["qwen", "q8", "qwen.gguf"],
    ["llama3", "q4", ""],
  ])("refuses %j/%j/%j", async (model, version, file) => {
    const mirror = createMirror({ dir: await populatedMirror() });

    expect(await mirror.filePath(model, version, file)).toBeNull();
  });

  it("refuses a symlink that leads out of the mirror", async () => {
    const dir = await populatedMirror();
    await symlink("/etc/hostname", join(dir, "llama3", "q4", "hostname"));

    expect(await createMirror({ dir }).filePath("llama3", "q4", "hostname")).toBeNull();
  });

  it("finds a download once it is renamed into place", async () => {
    const dir = await populatedMirror();
    const mirror = createMirror({ dir });
    await rename(join(dir, "qwen", "q8", "qwen.gguf.part"), join(dir, "qwen", "q8", "qwen.gguf"));

    expect(await mirror.filePath("qwen", "q8", "qwen.gguf")).not.toBeNull();
    expect((await mirror.get("qwen", "q8"))?.files).toEqual([
      {
        file: "qwen.gguf",
        bytesDone: 1_000_000,
        bytesTotal: 1_000_000,
        state: "complete",
        error: null,
        sha256: null,
      },
    ]);
  });
});

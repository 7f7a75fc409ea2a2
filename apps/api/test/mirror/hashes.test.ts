import { rm, utimes } from "node:fs/promises";
import { join } from "node:path";
import { llama3_8b, writeGgufFile } from "@llmgw/simulation";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { createMirror, type MirrorOptions } from "../../src/mirror/scanner";
import { firstCall, sha256Of, sha256OfFile, tempDir } from "./fixtures";

// SPEC §8.1: the mirror computes each complete file's SHA-256 once, in the background, and keeps
// it with the file's size and mtime. Small files here: the digest is the point, not the size.

const small = (blockCount = 32) => llama3_8b({ blockCount, weightsBytes: 1_000_000 });

/** A mirror of one small GGUF file at `m/v/m.gguf`, hashing for the rest of the test. */
async function hashingMirror(options: Partial<MirrorOptions> = {}) {
  const dir = await tempDir();
  const path = join(dir, "m", "v", "m.gguf");
  await writeGgufFile(path, small());
  const hashFile = vi.fn(options.hashFile ?? sha256OfFile);
  const mirror = createMirror({ dir, ...options, hashFile });
  onTestFinished(mirror.hashInBackground());
  return { dir, path, mirror, hashFile };
}

const digestIn = (versions: { files: { sha256: string | null }[] }[]) => versions[0]?.files[0]?.sha256;

describe("Mirror SHA-256", () => {
  it("computes nothing until asked to hash in the background", async () => {
    const dir = await tempDir();
    await writeGgufFile(join(dir, "m", "v", "m.gguf"), small());
    const hashFile = vi.fn(sha256OfFile);
    const mirror = createMirror({ dir, hashFile });

    const versions = await mirror.scan();
    await mirror.hashed();

    expect(digestIn(versions)).toBeNull();
    expect(hashFile).not.toHaveBeenCalled();
  });

  it("lists a complete file's SHA-256 once computed, as node:crypto has it", async () => {
    const { path, mirror } = await hashingMirror();

    expect(digestIn(await mirror.scan())).toBeNull();
    await mirror.hashed();

    expect(digestIn(mirror.list())).toBe(await sha256Of(path));
    expect(mirror.find("m", "v")?.files[0]?.sha256).toBe(await sha256Of(path));
    expect((await mirror.get("m", "v"))?.files[0]?.sha256).toBe(await sha256Of(path));
  });

  it("computes it once while the file is unchanged, and again when it changes", async () => {
    const { path, mirror, hashFile } = await hashingMirror();
    await mirror.scan();
    await mirror.hashed();
    const first = digestIn(mirror.list());
    await mirror.scan();
    await mirror.hashed();
    expect(hashFile).toHaveBeenCalledTimes(1);

    await writeGgufFile(path, small(40));
    await utimes(path, new Date(), new Date(Date.now() + 5000));
    expect(digestIn(await mirror.scan())).toBeNull();
    await mirror.hashed();

    expect(hashFile).toHaveBeenCalledTimes(2);
    expect(digestIn(mirror.list())).toBe(await sha256Of(path));
    expect(digestIn(mirror.list())).not.toBe(first);
  });

  it("takes a digest its writer computed, and never reads that file", async () => {
    const { path, mirror, hashFile } = await hashingMirror({ hashFile: async () => "f".repeat(64) });
    await mirror.recordDigest(path, "a".repeat(64));

    await mirror.scan();
    await mirror.hashed();

    expect(digestIn(mirror.list())).toBe("a".repeat(64));
    expect(hashFile).not.toHaveBeenCalled();
  });

  it("hashes one file at a time", async () => {
    const dir = await tempDir();
    for (const name of ["a", "b", "c"]) await writeGgufFile(join(dir, name, "v", `${name}.gguf`), small());
    let running = 0;
    let most = 0;
    const mirror = createMirror({
      dir,
      hashFile: async (path, signal) => {
        most = Math.max(most, ++running);
        try {
          return await sha256OfFile(path, signal);
        } finally {
          running--;
        }
      },
    });
    onTestFinished(mirror.hashInBackground());

    await mirror.scan();
    await mirror.hashed();

    expect(mirror.list().map((v) => v.files[0]?.sha256)).toEqual([
      expect.stringMatching(/^[0-9a-f]{64}$/),
      expect.stringMatching(/^[0-9a-f]{64}$/),
      expect.stringMatching(/^[0-9a-f]{64}$/),
    ]);
    expect(most).toBe(1);
  });

  it("stops hashing a file that a scan no longer sees", async () => {
    let reading: (signal: AbortSignal) => void = () => {};
    const read = new Promise<AbortSignal>((resolve) => {
      reading = resolve;
    });
    // Holds the read until it is abandoned, as a multi-GB file would.
    const { dir, mirror } = await hashingMirror({
      hashFile: (_path, signal) => {
        reading(signal);
        return new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason)),
        );
      },
    });
    await mirror.scan();
    const signal = await read;

    await rm(join(dir, "m"), { recursive: true });
    await mirror.scan();

    expect(signal.aborted).toBe(true);
    await mirror.hashed();
    expect(mirror.list()).toEqual([]);
  });

  it("leaves the digest null when the file cannot be read, without trying again until it changes", async () => {
    const { mirror, hashFile } = await hashingMirror({
      hashFile: () => Promise.reject(new Error("disk on fire")),
    });
    await mirror.scan();
    await mirror.hashed();
    await mirror.scan();
    await mirror.hashed();

    expect(digestIn(mirror.list())).toBeNull();
    expect(hashFile).toHaveBeenCalledTimes(1);
  });

  it("is announced to watchers: the version shows again with its digest", async () => {
    const { path, mirror } = await hashingMirror({ rescanMs: 60_000, settleMs: 20 });

    const announced = firstCall<string>((resolve) =>
      mirror.watch((changed) => {
        const sha256 = changed[0]?.files[0]?.sha256;
        if (sha256) resolve(sha256);
      }),
    );

    expect(await announced).toBe(await sha256Of(path));
  });
});

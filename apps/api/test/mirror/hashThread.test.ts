import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { llama3_8b, writeGgufFile } from "@llmgw/simulation";
import { describe, expect, it, vi } from "vitest";
import { hashInThread } from "../../src/mirror/hashThread";
import { createMirror } from "../../src/mirror/scanner";
import { sha256Of, sha256OfFile, tempDir } from "./fixtures";

// The mirror's digests (SPEC §8.1) are computed off the event loop, at a bounded rate, and a
// generated stand-in (`<file>.generated` beside it) is never read for one.

const MB = 1024 * 1024;

async function fileOf(bytes: number): Promise<string> {
  const path = join(await tempDir(), "weights.bin");
  await writeFile(path, Buffer.alloc(bytes, 7));
  return path;
}

describe("hashInThread", () => {
  it("answers the file's SHA-256, as node:crypto has it", async () => {
    const path = await fileOf(3 * MB + 17);
    expect(await hashInThread()(path, new AbortController().signal)).toBe(await sha256Of(path));
  });

  it("reads at its rate in a thread of its own: the event loop keeps turning meanwhile", async () => {
    const path = await fileOf(8 * MB);
    let turns = 0;
    const ticking = setInterval(() => turns++, 1);
    const started = performance.now();
    try {
      await hashInThread(32 * MB)(path, new AbortController().signal);
    } finally {
      clearInterval(ticking);
    }
    // 8 MiB at 32 MiB/s: a quarter of a second at least, however fast the core.
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    expect(turns).toBeGreaterThan(10);
  });

  it("stops when asked, rejecting with the reason, and hashes the next file after", async () => {
    const path = await fileOf(16 * MB);
    const hash = hashInThread(8 * MB);
    const stop = new AbortController();
    const reading = hash(path, stop.signal);
    stop.abort(new Error("the file went away"));
    await expect(reading).rejects.toThrow("the file went away");
    const small = await fileOf(1000);
    expect(await hash(small, new AbortController().signal)).toBe(await sha256Of(small));
  });

  it("rejects for a file it cannot read", async () => {
    await expect(
      hashInThread()(join(await tempDir(), "missing"), new AbortController().signal),
    ).rejects.toThrow(/ENOENT/);
  });
});

describe("a generated stand-in", () => {
  it("is listed without a digest and never read for one; a real file beside it is", async () => {
    const dir = await tempDir();
    const small = llama3_8b({ blockCount: 32, weightsBytes: 1_000_000 });
    await writeGgufFile(join(dir, "m", "v", "standin.gguf"), small);
    await writeFile(join(dir, "m", "v", "standin.gguf.generated"), "");
    await writeGgufFile(join(dir, "m", "v", "real.gguf"), small);
    const hashFile = vi.fn(sha256OfFile);
    const mirror = createMirror({ dir, hashFile });
    const stop = mirror.hashInBackground();
    try {
      const [version] = await mirror.scan();
      expect(version?.files.map((f) => f.file)).toEqual(["real.gguf", "standin.gguf"]);
      expect(mirror.hashing()).toBe(1);
      await mirror.hashed();

      expect(mirror.hashing()).toBe(0);
      expect(hashFile.mock.calls.map(([path]) => path)).toEqual([join(dir, "m", "v", "real.gguf")]);
      const files = mirror.find("m", "v")?.files ?? [];
      expect(files.find((f) => f.file === "real.gguf")?.sha256).toBe(
        await sha256Of(join(dir, "m", "v", "real.gguf")),
      );
      expect(files.find((f) => f.file === "standin.gguf")?.sha256).toBeNull();
      // The mark itself is bookkeeping: neither listed nor served.
      expect(await mirror.filePath("m", "v", "standin.gguf.generated")).toBeNull();
    } finally {
      stop();
    }
  });
});

import { mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { partOf, placeFiles, removeLeftovers, sizeFileOf } from "../../src/huggingFace/leftovers";
import { openNoFollow, SymlinkRefused, sizeNoFollow, writeNoFollow } from "../../src/huggingFace/noFollow";
import { tempDir } from "../mirror/fixtures";

// SPEC §10.5a: what a pull leaves on disk is placed or removed without an error of the disk ever
// leaving the pull, and nothing is written through a symlink.

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe("removeLeftovers", () => {
  it("never throws: a path under a file (ENOTDIR) or too long is the problem it returns", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "model"), "a file where a folder goes\n");
    const problem = await removeLeftovers([
      { dest: join(dir, "model", "Q4_K_M", "m.gguf") },
      { dest: join(dir, "x".repeat(300)) },
    ]);
    expect(problem).toMatch(/^cleaning up failed: \w+ (ENOTDIR|ENAMETOOLONG)/);
    expect(await readFile(join(dir, "model"), "utf8")).toBe("a file where a folder goes\n");
  });

  it("tries every file when one fails, and returns null when all went", async () => {
    const dir = await tempDir();
    const blocked = join(dir, "blocked.gguf");
    await mkdir(partOf(blocked));
    await writeFile(join(partOf(blocked), "inside"), "x");
    const fine = join(dir, "fine.gguf");
    await writeFile(partOf(fine), "part");
    await writeFile(sizeFileOf(fine), "4\n");
    expect(await removeLeftovers([{ dest: blocked }, { dest: fine }])).toContain("cleaning up failed");
    expect(await exists(partOf(fine))).toBe(false);
    expect(await exists(sizeFileOf(fine))).toBe(false);
    expect(await removeLeftovers([{ dest: fine }])).toBeNull();
  });
});

describe("placeFiles", () => {
  it("moves back what it placed when a later rename fails, and throws why", async () => {
    const dir = await tempDir();
    const first = join(dir, "a.gguf");
    const second = join(dir, "b.gguf");
    await writeFile(partOf(first), "a");
    await writeFile(partOf(second), "b");
    // A non-empty folder at the second's final name: its rename fails.
    await mkdir(second);
    await writeFile(join(second, "inside"), "x");
    await expect(placeFiles([{ dest: first }, { dest: second }])).rejects.toThrow();
    expect(await exists(first)).toBe(false);
    expect(await readFile(partOf(first), "utf8")).toBe("a");
  });
});

describe("no write through a symlink", () => {
  it("refuses to open, size or write a symlink, and leaves its target as it was", async () => {
    const dir = await tempDir();
    const target = join(dir, "target");
    await writeFile(target, "untouched\n");
    const link = join(dir, "m.gguf.part");
    await symlink(target, link);
    await expect(openNoFollow(link, "append")).rejects.toBeInstanceOf(SymlinkRefused);
    await expect(writeNoFollow(link, "12\n")).rejects.toThrow(/is a symlink/);
    await expect(sizeNoFollow(link)).rejects.toBeInstanceOf(SymlinkRefused);
    expect(await readFile(target, "utf8")).toBe("untouched\n");
    expect(await sizeNoFollow(join(dir, "none"))).toBe(0);
  });
});

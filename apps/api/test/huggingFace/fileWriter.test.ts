import { createHash } from "node:crypto";
import { mkdtemp, open, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  downloadChecked,
  FileMismatch,
  type FileToWrite,
  placeFiles,
  removeLeftovers,
} from "../../src/huggingFace/fileWriter";
import { type HubAccess, HubRefused, resolveUrl } from "../../src/huggingFace/hubHttp";
import { gitFile, randomLfsFile, type StandInFile, StandInHub } from "../kit";

const TOKEN = "hf_test_token";
let hub: StandInHub;
let dir: string;
let access: HubAccess;

beforeAll(async () => {
  hub = await StandInHub.start();
  access = { endpoint: hub.url, token: TOKEN };
});
afterAll(() => hub.close());
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "llmgw-writer-"));
  hub.requests.length = 0;
  hub.knobs.cutAfter.clear();
  hub.knobs.stallAfter.clear();
  hub.knobs.failNext.clear();
  hub.knobs.bytesPerSecond = null;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

let sequence = 0;

/** Compared whole: `toEqual` walks a buffer byte by byte, seconds for a few megabytes. */
function sameBytes(a: Buffer, b: Buffer | undefined): boolean {
  return b !== undefined && a.equals(b);
}

/** A repo holding one file; what the writer needs to fetch it into `dir`. */
async function oneFile(file: StandInFile, listed: Partial<FileToWrite> = {}): Promise<FileToWrite> {
  sequence += 1;
  const repo = `owner/writer-${sequence}`;
  const { commit } = await hub.addRepo({ repo, files: [file] });
  const bytes = file.data ?? Buffer.alloc(0);
  return {
    path: file.path,
    url: resolveUrl(access, repo, commit, file.path),
    dest: join(dir, "model", "v1", file.path),
    bytes: bytes.length,
    sha256: file.lfs ? createHash("sha256").update(bytes).digest("hex") : null,
    gitOid: file.lfs ? null : createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex"),
    ...listed,
  };
}

function write(file: FileToWrite, overrides: { signal?: AbortSignal; tries?: number; idleMs?: number } = {}) {
  const seen: number[] = [];
  const done = downloadChecked(file, {
    access,
    signal: overrides.signal ?? new AbortController().signal,
    onBytes: (n) => seen.push(n),
    backoffMs: 5,
    tries: overrides.tries,
    idleMs: overrides.idleMs,
  });
  return { done, seen };
}

describe("downloadChecked", () => {
  it("follows the Hub's redirect to the CDN, sending the token to the Hub only, and leaves a checked .part", async () => {
    const source = randomLfsFile("m-Q4_K_M.gguf", 3_000_000);
    const file = await oneFile(source);
    const { done, seen } = write(file);
    await done;

    expect(sameBytes(await readFile(`${file.dest}.part`), source.data)).toBe(true);
    expect(await readFile(`${file.dest}.size`, "utf8")).toBe("3000000\n");
    expect(seen.at(-1)).toBe(3_000_000);
    expect(hub.requestsTo("hub").map((r) => r.authorization)).toEqual([`Bearer ${TOKEN}`]);
    expect(hub.requestsTo("cdn")).toHaveLength(1);
    expect(hub.requestsTo("cdn")[0]?.authorization).toBeNull();

    await placeFiles([file]);
    expect(sameBytes(await readFile(file.dest), source.data)).toBe(true);
    expect(await readdir(join(dir, "model", "v1"))).toEqual(["m-Q4_K_M.gguf"]);
  });

  it("resumes with Range from where a cut connection stopped", async () => {
    const source = randomLfsFile("cut.gguf", 2_500_000);
    const file = await oneFile(source);
    hub.knobs.cutAfter.set("cut.gguf", 1_000_000);
    await write(file).done;

    expect(sameBytes(await readFile(`${file.dest}.part`), source.data)).toBe(true);
    const ranges = hub.requestsTo("cdn").map((r) => r.range);
    expect(ranges).toHaveLength(2);
    expect(ranges[0]).toBeNull();
    // Resumed where the bytes on disk end, not from the start.
    expect(ranges[1]).toMatch(/^bytes=\d+-$/);
    expect(Number(ranges[1]?.slice(6, -1))).toBeGreaterThan(0);
  });

  it("cuts a connection that falls silent, and resumes it with Range", async () => {
    const source = randomLfsFile("stall.gguf", 2_500_000);
    const file = await oneFile(source);
    hub.knobs.stallAfter.set("stall.gguf", 1_000_000);
    await write(file, { idleMs: 300 }).done;

    expect(sameBytes(await readFile(`${file.dest}.part`), source.data)).toBe(true);
    const ranges = hub.requestsTo("cdn").map((r) => r.range);
    expect(ranges).toHaveLength(2);
    expect(Number(ranges[1]?.slice(6, -1))).toBeGreaterThan(0);
  });

  it("does not count a write that fell short: the retry hashes what is on disk again", async () => {
    const source = randomLfsFile("short.gguf", 2_500_000);
    const file = await oneFile(source);
    // The first write lands only half its first buffer, as a full disk might leave it (however
    // the bytes are batched, there is a first write).
    const probe = await open(join(dir, "probe"), "w");
    const proto = Object.getPrototypeOf(probe) as {
      writev(buffers: Buffer[]): Promise<{ bytesWritten: number }>;
    };
    await probe.close();
    const real = proto.writev;
    let shortened = 0;
    const spy = vi.spyOn(proto, "writev").mockImplementation(async function (
      this: unknown,
      buffers: Buffer[],
    ) {
      if (shortened++ === 0) {
        const first = buffers[0] ?? Buffer.alloc(0);
        return real.call(this, [first.subarray(0, Math.floor(first.length / 2))]);
      }
      return real.call(this, buffers);
    });
    try {
      await write(file).done;
    } finally {
      spy.mockRestore();
    }
    expect(shortened).toBeGreaterThanOrEqual(2);
    expect(sameBytes(await readFile(`${file.dest}.part`), source.data)).toBe(true);
  });

  it("resumes a .part a restart left, reading back only what it holds", async () => {
    const source = randomLfsFile("restart.gguf", 1_000_000);
    const file = await oneFile(source);
    await write(file).done;
    // As a killed server leaves it: the first 400,000 bytes, no hash in memory.
    await writeFile(`${file.dest}.part`, (source.data ?? Buffer.alloc(0)).subarray(0, 400_000));
    hub.requests.length = 0;

    await write(file).done;
    expect(sameBytes(await readFile(`${file.dest}.part`), source.data)).toBe(true);
    expect(hub.requestsTo("cdn").map((r) => r.range)).toEqual(["bytes=400000-"]);
  });

  it("retries what fails with backoff, and gives up after 5 tries in a row", async () => {
    const ok = await oneFile(randomLfsFile("flaky.gguf", 10_000));
    hub.knobs.failNext.set("flaky.gguf", [503, 500]);
    await write(ok).done;
    expect(hub.requestsTo("cdn")).toHaveLength(3);

    const down = await oneFile(randomLfsFile("down.gguf", 10_000));
    hub.knobs.failNext.set("down.gguf", [503, 503, 503, 503, 503, 503]);
    await expect(write(down).done).rejects.toThrow(/503/);
    expect(hub.requestsTo("cdn").filter((r) => r.path.includes(ok.sha256 ?? "")).length).toBe(3);
    expect(hub.knobs.failNext.get("down.gguf")).toEqual([503]);
  });

  it("does not retry a refusal", async () => {
    const file = await oneFile(randomLfsFile("gone.gguf", 10_000));
    hub.knobs.failNext.set("gone.gguf", [404, 404]);
    const failed = write(file).done;
    await expect(failed).rejects.toBeInstanceOf(HubRefused);
    expect(hub.knobs.failNext.get("gone.gguf")).toEqual([404]);
  });

  it("fails a file whose bytes do not match the listed SHA-256, leaving nothing of it", async () => {
    const file = await oneFile(randomLfsFile("bad.gguf", 50_000), { sha256: "0".repeat(64) });
    const failed = write(file).done;
    await expect(failed).rejects.toThrow(new FileMismatch("checksum mismatch for bad.gguf"));
    await expect(readdir(join(dir, "model"))).rejects.toThrow(/ENOENT/);
  });

  it("checks a file kept in git by its git hash", async () => {
    const file = await oneFile(gitFile("config.json", '{"a":1}\n'));
    await write(file).done;
    expect(await readFile(`${file.dest}.part`, "utf8")).toBe('{"a":1}\n');
    expect(hub.requestsTo("cdn")).toHaveLength(0);

    const lying = await oneFile(gitFile("other.json", "{}\n"), { gitOid: "f".repeat(40) });
    await expect(write(lying).done).rejects.toThrow("checksum mismatch for other.json");
  });

  it("stops when aborted, and removeLeftovers takes away its .part and .size", async () => {
    hub.knobs.bytesPerSecond = 200_000;
    const file = await oneFile(randomLfsFile("slow.gguf", 2_000_000));
    const abort = new AbortController();
    const { done, seen } = write(file, { signal: abort.signal });
    await expect.poll(() => seen.at(-1) ?? 0).toBeGreaterThan(0);
    abort.abort();
    await expect(done).rejects.toThrow();
    await removeLeftovers([file]);
    await expect(readdir(join(dir, "model"))).rejects.toThrow(/ENOENT/);
  });
});

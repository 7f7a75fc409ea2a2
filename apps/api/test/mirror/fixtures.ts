import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { HashFile } from "../../src/mirror/hashes";

export const GB = 1_000_000_000;

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh, empty directory for one test, removed after it. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "llmgw-mirror-"));
  made.push(dir);
  return dir;
}

/** Kilobytes the file really occupies on disk (`du`), as opposed to its apparent size. */
export function diskKilobytes(path: string): number {
  const out = execFileSync("du", ["-k", path], { encoding: "utf8" });
  return Number(out.split(/\s/)[0]);
}

/**
 * Resolves with the first value `subscribe` hands its callback, then unsubscribes; rejects after
 * `ms`. For awaiting an event instead of sleeping and hoping it came.
 */
export function firstCall<T>(subscribe: (resolve: (value: T) => void) => () => void, ms = 5000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    let stop: (() => void) | null = null;
    const finish = (): void => {
      done = true;
      clearTimeout(timer);
      stop?.();
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`no callback within ${ms} ms`));
    }, ms);
    stop = subscribe((value) => {
      if (done) return;
      finish();
      resolve(value);
    });
    // The callback may have come before subscribe returned its stop function.
    if (done) stop();
  });
}

/** SHA-256 of a file, read as a stream in 1 MiB chunks on the event loop: the tests' HashFile. */
export const sha256OfFile: HashFile = async (path, signal) => {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024, signal })) {
    hash.update(chunk as Buffer);
  }
  return hash.digest("hex");
};

/** A file's SHA-256 as node:crypto has it, read whole: the reference the mirror's digests must equal. */
export async function sha256Of(path: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(path))
    .digest("hex");
}

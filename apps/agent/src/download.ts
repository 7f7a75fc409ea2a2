import { createHash, type Hash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { rm, stat } from "node:fs/promises";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { request } from "./http";

/** The mirror answered, and no retry will change its answer (401, 403, 404…): the replica fails. */
export class MirrorRefused extends Error {}

export type DownloadRequest = {
  url: string;
  /** Where the bytes go; what is there already is resumed with a Range request. */
  part: string;
  /** The size the file must have, to tell a complete `.part` from one to resume. */
  bytes: number;
  token: string | null;
  signal: AbortSignal;
  /** Called with the bytes in `.part` so far, as they come. */
  onBytes(bytesDone: number): void;
};

/**
 * One attempt at one file: resumes `.part` from its size (`Range: bytes=N-`), streams the body to
 * disk as it comes, and hashes as it writes, so a file is never held in memory nor read twice
 * (a resumed one reads back only what it had). Throws on a refusal (`MirrorRefused`) and on any
 * network trouble, a cut connection included: the caller retries, and the retry resumes.
 * Returns what `.part` holds then: its size and SHA-256.
 */
export async function downloadPart(wanted: DownloadRequest): Promise<{ bytes: number; sha256: string }> {
  const { url, part, signal } = wanted;
  let have = await sizeOf(part);
  // More than the file can hold is not a prefix of it: start over.
  if (have > wanted.bytes) {
    await rm(part, { force: true });
    have = 0;
  }
  const headers: Record<string, string> = {};
  if (wanted.token) headers.authorization = `Bearer ${wanted.token}`;
  if (have > 0) headers.range = `bytes=${have}-`;
  const res = await request(url, { headers, signal });
  if (res.status === 416 && have === wanted.bytes) {
    // Nothing left to fetch: the previous attempt got it all and stopped before renaming.
    res.drop();
    return { bytes: have, sha256: await hashOf(part, createHash("sha256"), signal) };
  }
  if (res.status !== 200 && res.status !== 206) {
    res.drop();
    const why = `the mirror answered ${res.status} for ${new URL(url).pathname}`;
    if (
      res.status >= 400 &&
      res.status < 500 &&
      res.status !== 408 &&
      res.status !== 429 &&
      res.status !== 416
    )
      throw new MirrorRefused(why);
    if (res.status === 416) await rm(part, { force: true });
    throw new Error(why);
  }
  // A 200 to a Range request is the whole file again: start the part over.
  const resuming = res.status === 206 && have > 0 && startOf(res.header("content-range")) === have;
  if (res.status === 206 && !resuming) {
    res.drop();
    await rm(part, { force: true });
    throw new Error(`the mirror answered an unexpected range for ${new URL(url).pathname}`);
  }
  const hash = createHash("sha256");
  if (resuming) await hashOf(part, hash, signal);
  else have = 0;
  let done = have;
  wanted.onBytes(done);
  const count = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      done += chunk.length;
      wanted.onBytes(done);
      callback(null, chunk);
    },
  });
  await pipeline(res.body, count, createWriteStream(part, { flags: resuming ? "a" : "w" }), { signal });
  return { bytes: done, sha256: hash.digest("hex") };
}

/** At most so many downloads at once (SPEC §8.2); the others wait their turn, or give up waiting. */
export class DownloadSlots {
  private readonly queue: (() => void)[] = [];
  constructor(private free: number) {}

  async take(signal: AbortSignal): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const take = () => {
        signal.removeEventListener("abort", leave);
        resolve();
      };
      const leave = () => {
        this.queue.splice(this.queue.indexOf(take), 1);
        reject(signal.reason);
      };
      this.queue.push(take);
      signal.addEventListener("abort", leave, { once: true });
    });
  }

  give(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.free += 1;
  }
}

/** Feeds a file to `hash`, streaming; returns the hex digest when the hash is a fresh one. */
export async function hashOf(path: string, hash: Hash, signal?: AbortSignal): Promise<string> {
  for await (const chunk of createReadStream(path, { signal })) hash.update(chunk as Buffer);
  return hash.copy().digest("hex");
}

export async function sizeOf(path: string): Promise<number> {
  return stat(path).then(
    (s) => s.size,
    () => 0,
  );
}

/** `bytes 100-199/200` → 100. */
function startOf(contentRange: string | null): number | null {
  const start = /^bytes (\d+)-/.exec(contentRange ?? "")?.[1];
  return start === undefined ? null : Number(start);
}

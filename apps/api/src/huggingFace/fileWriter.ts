import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { type FileHandle, mkdir, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { type HubAccess, HubRefused, hubGet, idleMsOf } from "./hubHttp";
import { partOf, removeLeftovers, sizeFileOf } from "./leftovers";
import { openNoFollow, SymlinkRefused, sizeNoFollow, writeNoFollow } from "./noFollow";
import { cutTrickle } from "./trickle";

// llmgw's own writer for Hub files (SPEC §10.4): `@huggingface/hub` neither resumes nor verifies.
// A file is written as `<dest>.part` with `<dest>.size` beside it (the mirror shows the progress),
// resumed with Range after a broken connection or a restart, retried with backoff, hashed as it is
// written (never read back, except the part a restart left), and checked against the listed size
// and digest. Renaming into place is the caller's, once every file of the pull is checked, so a
// pull that fails leaves no file of it at a final path.

/** One file to fetch: where it comes from, where it goes, and what it must be. */
export interface FileToWrite {
  /** The Hub path, for messages. */
  path: string;
  url: string;
  /** The final path in the mirror; the bytes go to `dest + ".part"` until the pull is done. */
  dest: string;
  bytes: number;
  /** The listed LFS SHA-256; else `gitOid` (a small file kept in git) is checked. */
  sha256: string | null;
  gitOid: string | null;
}

export interface WriteOptions {
  access: HubAccess;
  signal: AbortSignal;
  /** The bytes in `.part` so far, called as they are written. */
  onBytes(done: number): void;
  /** Tries in a row without a byte of progress before giving up (SPEC §10.4: 5). */
  tries?: number;
  /** The first wait between tries; each next one doubles (capped at 30 s). */
  backoffMs?: number;
  /** A connection that sends nothing, or under 1 kB/s, for this long is cut and resumed (default `huggingface.idleSeconds`). */
  idleMs?: number;
}

/** The file is not what the Hub listed: a pull with it fails, and the file is gone. */
export class FileMismatch extends Error {}

export { partOf, placeFiles, removeLeftovers, sizeFileOf } from "./leftovers";

/** Fetches one file into `<dest>.part` until it is whole and checked; throws why not. */
export async function downloadChecked(file: FileToWrite, options: WriteOptions): Promise<void> {
  const part = partOf(file.dest);
  await mkdir(dirname(file.dest), { recursive: true });
  await writeNoFollow(sizeFileOf(file.dest), `${file.bytes}\n`);
  if ((await sizeNoFollow(part)) > file.bytes) await rm(part, { force: true });
  // What a restart left is hashed once, from disk; from then on every byte is hashed as written.
  const digest = new Digest(file);
  await digest.fromDisk(part, options.signal);
  options.onBytes(digest.done);
  const tries = options.tries ?? 5;
  let failed = 0;
  while (digest.done < file.bytes) {
    if (digest.stale) await digest.fromDisk(part, options.signal);
    const before = digest.done;
    try {
      await fetchRest(file, part, digest, options);
    } catch (err) {
      if (options.signal.aborted || isFinal(err)) throw err;
      failed = digest.done > before ? 1 : failed + 1;
      if (failed >= tries) throw err;
      const wait = Math.min(30_000, (options.backoffMs ?? 1000) * 2 ** (failed - 1));
      await sleep(wait, undefined, { signal: options.signal });
    }
  }
  const got = digest.hex();
  if (got !== (file.sha256 ?? file.gitOid)) {
    // The mismatch is the pull's reason; a cleanup that fails too is the runner's to retry.
    await removeLeftovers([file]);
    throw new FileMismatch(`checksum mismatch for ${file.path}`);
  }
}

/** One request for what `.part` lacks, written as it comes. Throws on anything short of the end. */
async function fetchRest(
  file: FileToWrite,
  part: string,
  digest: Digest,
  options: WriteOptions,
): Promise<void> {
  const from = digest.done;
  const idleMs = options.idleMs ?? idleMsOf(options.access);
  const res = await hubGet(options.access, file.url, {
    headers: from > 0 ? { range: `bytes=${from}-` } : {},
    signal: options.signal,
    idleMs,
  });
  if (res.status === 416) {
    res.body.resume();
    throw new Error(`the Hub has fewer bytes of ${file.path} than the ${file.bytes} it lists`);
  }
  if (from > 0 && res.status === 200) {
    // The whole file again, not the rest: start the part over.
    await rm(part, { force: true });
    digest.restart();
  } else if (from > 0 && startOf(res.headers["content-range"]) !== from) {
    res.body.resume();
    throw new Error(`the Hub answered another range than bytes=${from}- for ${file.path}`);
  }
  const handle = await openNoFollow(part, "append").catch((err: unknown) => {
    res.body.destroy();
    throw err;
  });
  const unwatch = cutTrickle(res.body, () => digest.done, idleMs, file.path);
  try {
    await pipeline(res.body, new PartSink(handle, digest, file, options.onBytes), { signal: options.signal });
  } finally {
    unwatch();
    await handle.close();
  }
  if (digest.done < file.bytes)
    throw new Error(`the connection ended at byte ${digest.done} of ${file.path}`);
}

/**
 * Writes to `.part` and hashes the same bytes while the write is in flight (the write runs on
 * libuv's pool, the hash on this thread: one waits for the other no longer). A write that fails
 * leaves the hash ahead of the disk, so it is marked stale and the retry hashes the part again
 * from disk; otherwise the hash has seen exactly the bytes on disk and a retry resumes from there.
 */
class PartSink extends Writable {
  constructor(
    private readonly handle: FileHandle,
    private readonly digest: Digest,
    private readonly file: FileToWrite,
    private readonly onBytes: (done: number) => void,
  ) {
    super({ highWaterMark: 4 * 1024 * 1024 });
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (err?: Error | null) => void): void {
    this.append(chunks.map((c) => c.chunk)).then(() => callback(), callback);
  }

  private async append(buffers: Buffer[]): Promise<void> {
    const bytes = buffers.reduce((sum, b) => sum + b.length, 0);
    if (this.digest.done + bytes > this.file.bytes) {
      throw new FileMismatch(
        `size mismatch for ${this.file.path}: the Hub sent more than the ${this.file.bytes} bytes it lists`,
      );
    }
    const written = this.handle.writev(buffers);
    for (const b of buffers) this.digest.update(b);
    try {
      const { bytesWritten } = await written;
      if (bytesWritten !== bytes)
        throw new Error(`wrote ${bytesWritten} of ${bytes} bytes to ${partOf(this.file.dest)}`);
    } catch (err) {
      this.digest.stale = true;
      throw err;
    }
    this.onBytes(this.digest.done);
  }
}

/**
 * The digest the Hub lists for a file, computed as it is written: SHA-256 for an LFS file, else
 * git's blob id (SHA-1 over `blob <size>\0` and the bytes).
 */
class Digest {
  private hash: Hash;
  done = 0;
  /** Ahead of the disk after a failed write: hash the part again before resuming. */
  stale = false;

  constructor(private readonly file: FileToWrite) {
    this.hash = this.fresh();
  }

  private fresh(): Hash {
    if (this.file.sha256 !== null) return createHash("sha256");
    return createHash("sha1").update(`blob ${this.file.bytes}\0`);
  }

  update(chunk: Buffer): void {
    this.hash.update(chunk);
    this.done += chunk.length;
  }

  restart(): void {
    this.hash = this.fresh();
    this.done = 0;
    this.stale = false;
  }

  /** Starts again from what `part` holds on disk: a restart's leftover, or after a failed write. */
  async fromDisk(part: string, signal: AbortSignal): Promise<void> {
    this.restart();
    const bytes = Math.min(await sizeNoFollow(part), this.file.bytes);
    if (bytes > 0) await this.#readPrefix(part, bytes, signal);
  }

  async #readPrefix(part: string, bytes: number, signal: AbortSignal): Promise<void> {
    const sink = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        this.update(chunk);
        callback();
      },
    });
    await pipeline(createReadStream(part, { start: 0, end: bytes - 1 }), sink, { signal });
  }

  hex(): string {
    return this.hash.digest("hex");
  }
}

/** A refusal no retry changes: the Hub said no (not a 408 or 429), or the bytes are wrong. */
function isFinal(err: unknown): boolean {
  if (err instanceof FileMismatch || err instanceof SymlinkRefused) return true;
  return err instanceof HubRefused && err.status < 500 && err.status !== 408 && err.status !== 429;
}

/** The first byte a 206's `Content-Range: bytes 100-199/200` covers. */
function startOf(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  const m = value ? /^bytes (\d+)-/.exec(value) : null;
  return m ? Number(m[1]) : null;
}

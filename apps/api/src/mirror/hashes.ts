import { stat } from "node:fs/promises";
import type { Logger } from "@llmgw/log";

/** One complete file as a scan saw it. */
export interface SeenFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** Reads a file whole and answers its SHA-256 as lowercase hex; stops (rejecting) on `signal`. */
export type HashFile = (path: string, signal: AbortSignal) => Promise<string>;

export interface HashBook {
  /** The file's digest when it is known for this size and mtime; null otherwise (and it is queued). */
  digestOf(file: SeenFile): string | null;
  /**
   * A digest computed elsewhere, as the file was written (a pull hashes what it downloads and has
   * checked it against the Hub's): kept as if it had been read here, so the file is never read again.
   */
  known(file: SeenFile, sha256: string): void;
  /** Forgets the files a full scan no longer saw, stopping the one being hashed if it is among them. */
  keepOnly(paths: ReadonlySet<string>): void;
  /** Starts hashing what is queued and what comes; returns stop. Off until then. */
  start(): () => void;
  /** Resolves once nothing is queued or being hashed (at once while stopped). */
  idle(): Promise<void>;
  /** How many files are queued or being hashed. */
  pending(): number;
}

interface Entry extends SeenFile {
  sha256: string | null;
  /** Hashing it failed for this size and mtime: not tried again until the file changes. */
  failed: boolean;
}

/**
 * The mirror's SHA-256 of each complete file (SPEC §8.1). Weights files are gigabytes that change
 * only by being replaced, so a digest is kept with the size and mtime it was computed for and
 * computed again only when those change. Hashing runs in the background, one file at a time, by
 * `hashFile` (the scanner's is `hashInThread`: off the event loop, at a bounded rate), so a mirror
 * of many files never has them all read at once. A file that changes while it is hashed is not given the digest
 * of what it was; the next scan queues it again.
 */
export function createHashBook(options: {
  hashFile: HashFile;
  /** Told each digest as it is known, for the mirror's listing and its watchers. */
  onHashed: (path: string, sha256: string) => void;
  log: Logger;
}): HashBook {
  const entries = new Map<string, Entry>();
  let running = false;
  let current: { entry: Entry; abort: AbortController } | null = null;
  const waiters: (() => void)[] = [];

  function wake(): void {
    if (!running || current) return;
    // Oldest first: a map iterates in insertion order, and a changed file is inserted anew.
    const next = [...entries.values()].find(needsHash);
    if (!next) {
      for (const resolve of waiters.splice(0)) resolve();
      return;
    }
    const abort = new AbortController();
    current = { entry: next, abort };
    void hashOne(next, abort.signal).finally(() => {
      current = null;
      // The next file on a later turn, so a run of small files does not hold the loop.
      setImmediate(wake);
    });
  }

  async function hashOne(entry: Entry, signal: AbortSignal): Promise<void> {
    let sha256: string;
    try {
      sha256 = await options.hashFile(entry.path, signal);
      const now = await stat(entry.path);
      // Replaced or rewritten meanwhile: the digest is of neither version for certain.
      if (now.size !== entry.size || now.mtimeMs !== entry.mtimeMs) return;
    } catch (err) {
      if (signal.aborted) return;
      entry.failed = true;
      options.log.warn({ err, path: entry.path }, "cannot compute a mirror file's SHA-256");
      return;
    }
    if (signal.aborted || entries.get(entry.path) !== entry) return;
    entry.sha256 = sha256;
    options.onHashed(entry.path, sha256);
  }

  return {
    digestOf(file) {
      const known = entries.get(file.path);
      if (known && known.size === file.size && known.mtimeMs === file.mtimeMs) return known.sha256;
      if (current?.entry.path === file.path) current.abort.abort();
      entries.delete(file.path);
      entries.set(file.path, { ...file, sha256: null, failed: false });
      wake();
      return null;
    },
    known(file, sha256) {
      if (current?.entry.path === file.path) current.abort.abort();
      entries.delete(file.path);
      entries.set(file.path, { ...file, sha256, failed: false });
    },
    keepOnly(paths) {
      for (const path of entries.keys()) if (!paths.has(path)) entries.delete(path);
      if (current && !paths.has(current.entry.path)) current.abort.abort();
    },
    start() {
      running = true;
      wake();
      return () => {
        running = false;
        current?.abort.abort();
        for (const resolve of waiters.splice(0)) resolve();
      };
    },
    pending() {
      let queued = 0;
      for (const entry of entries.values()) if (needsHash(entry)) queued++;
      return queued;
    },
    idle() {
      if (!running) return Promise.resolve();
      const pending = current !== null || [...entries.values()].some(needsHash);
      if (!pending) return Promise.resolve();
      return new Promise((resolve) => {
        waiters.push(resolve);
      });
    },
  };
}

function needsHash(entry: Entry): boolean {
  return entry.sha256 === null && !entry.failed;
}

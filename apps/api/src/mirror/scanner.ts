import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { GgufHeader, MirrorVersion, MisplacedFile } from "@llmgw/domain";
import { type Logger, silentLogger } from "@llmgw/log";
import { type DiskEntry, entriesOf, misplacedFiles, readVersion, realRoot, type VersionOnDisk } from "./disk";
import { readGgufHeader } from "./ggufHeader";
import { createHashBook, type HashFile } from "./hashes";
import { hashInThread } from "./hashThread";
import { HeaderCache } from "./headers";
import { LastScan } from "./lastScan";
import { isBookkeeping, isSafeSegment, realPathInside } from "./paths";
import { type MirrorListener, watchMirror } from "./watch";

export type { MirrorListener, VersionKey } from "./watch";

export interface MirrorOptions {
  /** The mirror directory: `<dir>/<model>/<version>/<file>`. It may not exist yet. */
  dir: string;
  /** Injected so tests can count reads or fail them. */
  readHeader?: (path: string) => Promise<GgufHeader>;
  /** Injected so tests can count or hold the SHA-256 reads; by default a low-priority thread (hashThread.ts). */
  hashFile?: HashFile;
  /** While watching, how often to rescan whatever the file-system events said. Default 2000 ms. */
  rescanMs?: number;
  /** While watching, how long to gather file-system events into one rescan. Default 100 ms. */
  settleMs?: number;
  /** Use `fs.watch` as well as the periodic rescan. Default true. */
  fsWatch?: boolean;
  /** Where a watch listener's failure is told; silent by default. */
  log?: Logger;
}

export interface Mirror {
  readonly dir: string;
  /** Reads the whole mirror from disk and keeps it as the snapshot `list()` returns. */
  scan(): Promise<MirrorVersion[]>;
  /** The versions as of the last scan (a watch keeps this fresh); empty before the first one. */
  list(): MirrorVersion[];
  /** One version as of the last scan, from memory: for the hot paths (a heartbeat's files). */
  find(model: string, version: string): MirrorVersion | null;
  /** One version read from disk now: the plan and the file listing must not act on a stale snapshot. */
  get(model: string, version: string): Promise<MirrorVersion | null>;
  /** The header of the version's first .gguf file, once that file is complete; null otherwise. */
  headerOf(model: string, version: string): Promise<GgufHeader | null>;
  /** The real path of a complete file of a version, or null for anything unknown or unsafe. */
  filePath(model: string, version: string, file: string): Promise<string | null>;
  /**
   * Calls `onChange` with the versions whose content changed and those that went away, a file's
   * new SHA-256 included. Returns stop.
   */
  watch(onChange: MirrorListener): () => void;
  /**
   * Computes each complete file's SHA-256 in the background (SPEC §8.1), one file at a time, and
   * shows it in the listing as it is known. Off until called (a server calls it; a test that does
   * not care is spared reading gigabytes). Returns stop.
   */
  hashInBackground(): () => void;
  /** Resolves once every complete file seen so far has its SHA-256 (at once when not hashing). */
  hashed(): Promise<void>;
  /** How many complete files still wait for their SHA-256 (the one being read included). */
  hashing(): number;
  /**
   * Takes a complete file's SHA-256 from whoever wrote it (a pull computes it while writing), so
   * the background hashing never reads the file again. `path` is `<dir>/<model>/<version>/<file>`.
   */
  recordDigest(path: string, sha256: string): Promise<void>;
  /**
   * Weights files the scan passes over because they are not at `<model>/<version>/<file>` (at the
   * root, or directly in a model's folder), each with where to move it: read from disk now.
   */
  misplaced(): Promise<MisplacedFile[]>;
}

export function createMirror(options: MirrorOptions): Mirror {
  const { dir } = options;
  const readHeader = options.readHeader ?? readGgufHeader;
  const headers = new HeaderCache(readHeader);
  const headerFor = (file: DiskEntry) => headers.headerFor(file);
  const snapshot = new LastScan();
  let scansStarted = 0;
  let snapshotFrom = 0;
  const nudges = new Set<() => void>();
  const hashes = createHashBook({
    hashFile: options.hashFile ?? hashInThread(),
    onHashed: (path, sha256) => {
      snapshot.digested(path, sha256);
      // The watchers rescan, see the digest and announce the version.
      for (const nudge of nudges) nudge();
    },
    log: options.log ?? silentLogger(),
  });

  /**
   * The version with each complete file's digest as known now; the files not hashed yet are queued.
   * Read after the scan's last await, so a digest that came in meanwhile is not lost.
   */
  function withDigests({ view, complete }: VersionOnDisk): MirrorVersion {
    const digests = new Map(complete.map((disk) => [disk.name, hashes.digestOf(disk)]));
    const files = view.files.map((f) =>
      f.state === "complete" ? { ...f, sha256: digests.get(f.file) ?? null } : f,
    );
    return { ...view, files };
  }

  async function readOne(model: string, version: string): Promise<VersionOnDisk | null> {
    if (!isSafeSegment(model) || !isSafeSegment(version)) return null;
    const root = await realRoot(dir);
    return root ? readVersion({ root, dir }, model, version, headerFor) : null;
  }

  async function scan(): Promise<MirrorVersion[]> {
    const started = ++scansStarted;
    const root = await realRoot(dir);
    const found: VersionOnDisk[] = [];
    if (root) {
      for (const model of await entriesOf(root, dir, "directory")) {
        const versions = await entriesOf(root, model.path, "directory");
        const read = await Promise.all(
          versions.map((version) => readVersion({ root, dir }, model.name, version.name, headerFor)),
        );
        for (const version of read) if (version) found.push(version);
      }
    }
    const inUse = new Set(found.flatMap(({ headerFile }) => (headerFile ? [headerFile.path] : [])));
    headers.keepOnly(inUse);
    const scanned = found.map((version) => ({
      view: withDigests(version),
      complete: version.complete,
    }));
    const versions = scanned.map(({ view }) => view);
    // Scans can overlap (a watch and a caller); an older one finishing late must not win.
    if (started > snapshotFrom) {
      snapshotFrom = started;
      snapshot.replace(scanned);
      hashes.keepOnly(snapshot.paths());
    }
    return versions;
  }

  return {
    dir,
    scan,
    list: () => snapshot.list(),
    find: (model, version) => snapshot.find(model, version),
    get: async (model, version) => {
      const found = await readOne(model, version);
      return found ? withDigests(found) : null;
    },
    headerOf: async (model, version) => {
      const found = await readOne(model, version);
      return found?.headerFile ? headerFor(found.headerFile) : null;
    },
    filePath: async (model, version, file) => {
      if (![model, version, file].every(isSafeSegment) || isBookkeeping(file)) return null;
      const root = await realRoot(dir);
      const real = root ? await realPathInside(root, join(dir, model, version, file)) : null;
      if (!real) return null;
      const stats = await stat(real).catch(() => null);
      return stats?.isFile() ? real : null;
    },
    watch: (onChange) =>
      watchMirror(
        {
          dir,
          scan,
          baseline: snapshot.list(),
          nudges: (nudge) => {
            nudges.add(nudge);
            return () => nudges.delete(nudge);
          },
          rescanMs: options.rescanMs ?? 2000,
          settleMs: options.settleMs ?? 100,
          fsWatch: options.fsWatch ?? true,
          log: options.log ?? silentLogger(),
        },
        onChange,
      ),
    hashInBackground: () => hashes.start(),
    hashed: () => hashes.idle(),
    recordDigest: async (path, sha256) => {
      const { size, mtimeMs } = await stat(path);
      hashes.known({ path, size, mtimeMs }, sha256);
    },
    hashing: () => hashes.pending(),
    misplaced: () => misplacedFiles(dir),
  };
}

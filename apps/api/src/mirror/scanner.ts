import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  type GgufHeader,
  ggufSummary,
  type MirrorFile,
  type MirrorVersion,
  type MisplacedFile,
  misplacedFile,
} from "@llmgw/domain";
import { type Logger, silentLogger } from "@llmgw/log";
import { readGgufHeader } from "./ggufHeader";
import { createHashBook, type HashFile, sha256OfFile } from "./hashes";
import { isBookkeeping, isSafeSegment, PART_SUFFIX, realPathInside, SIZE_SUFFIX } from "./paths";
import { MirrorSnapshot } from "./snapshot";
import { type MirrorListener, watchMirror } from "./watch";

export type { MirrorListener, VersionKey } from "./watch";

export interface MirrorOptions {
  /** The mirror directory: `<dir>/<model>/<version>/<file>`. It may not exist yet. */
  dir: string;
  /** Injected so tests can count reads or fail them. */
  readHeader?: (path: string) => Promise<GgufHeader>;
  /** Injected so tests can count or hold the SHA-256 reads. */
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
  /**
   * Weights files the scan passes over because they are not at `<model>/<version>/<file>` (at the
   * root, or directly in a model's folder), each with where to move it: read from disk now.
   */
  misplaced(): Promise<MisplacedFile[]>;
}

interface DiskEntry {
  name: string;
  path: string;
  size: number;
  mtimeMs: number;
  error: string | null;
}

interface VersionOnDisk {
  view: MirrorVersion;
  /** The file whose header describes the version, when it is there in full. */
  headerFile: DiskEntry | null;
  /** Its complete files as found on disk. */
  complete: DiskEntry[];
}

interface CachedHeader {
  size: number;
  mtimeMs: number;
  header: Promise<GgufHeader>;
}

export function createMirror(options: MirrorOptions): Mirror {
  const { dir } = options;
  const readHeader = options.readHeader ?? readGgufHeader;
  // Weights files are gigabytes and change only by being replaced, so a header is read again only
  // when the file's size or modification time says it is a different file.
  const headers = new Map<string, CachedHeader>();
  const snapshot = new MirrorSnapshot();
  let scansStarted = 0;
  let snapshotFrom = 0;
  const nudges = new Set<() => void>();
  const hashes = createHashBook({
    hashFile: options.hashFile ?? sha256OfFile,
    onHashed: (path, sha256) => {
      snapshot.digested(path, sha256);
      // The watchers rescan, see the digest and announce the version.
      for (const nudge of nudges) nudge();
    },
    log: options.log ?? silentLogger(),
  });

  function headerFor(file: DiskEntry): Promise<GgufHeader> {
    const hit = headers.get(file.path);
    if (hit && hit.size === file.size && hit.mtimeMs === file.mtimeMs) return hit.header;
    const header = readHeader(file.path).catch((err: unknown) => ({ error: String(err) }));
    headers.set(file.path, { size: file.size, mtimeMs: file.mtimeMs, header });
    return header;
  }

  async function readVersion(root: string, model: string, version: string): Promise<VersionOnDisk | null> {
    const versionDir = await realPathInside(root, join(dir, model, version));
    if (!versionDir) return null;
    const entries = await entriesOf(root, versionDir, "file");
    const byName = new Map(entries.map((entry) => [entry.name, entry]));
    const files: { file: MirrorFile; disk: DiskEntry | null }[] = [];
    for (const entry of entries) {
      if (entry.name.endsWith(SIZE_SUFFIX)) continue;
      if (!entry.name.endsWith(PART_SUFFIX)) {
        files.push({ file: completeOrFailed(entry), disk: entry.error ? null : entry });
        continue;
      }
      const name = entry.name.slice(0, -PART_SUFFIX.length);
      // A finished file wins over a .part the downloader forgot to remove.
      if (!isSafeSegment(name) || byName.has(name)) continue;
      const sizeFile = byName.get(name + SIZE_SUFFIX) ?? byName.get(entry.name + SIZE_SUFFIX);
      files.push({
        file: {
          file: name,
          bytesDone: entry.size,
          bytesTotal: sizeFile ? await expectedBytes(sizeFile) : null,
          state: entry.error ? "failed" : "downloading",
          error: entry.error,
          sha256: null,
        },
        disk: null,
      });
    }
    if (files.length === 0) return null;
    files.sort((a, b) => compareNames(a.file.file, b.file.file));
    // For a split model the first part carries the header that matters (and says it is part 1).
    const first = files.find(({ file }) => file.file.toLowerCase().endsWith(".gguf"));
    const headerFile = first?.file.state === "complete" ? first.disk : null;
    const header = headerFile ? await headerFor(headerFile) : null;
    return {
      view: {
        model,
        version,
        files: files.map(({ file }) => file),
        gguf: header && "metadata" in header ? ggufSummary(header.metadata, header.parameterCount) : null,
      },
      headerFile,
      complete: files.flatMap(({ disk }) => (disk ? [disk] : [])),
    };
  }

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
    return root ? readVersion(root, model, version) : null;
  }

  async function scan(): Promise<MirrorVersion[]> {
    const started = ++scansStarted;
    const root = await realRoot(dir);
    const found: VersionOnDisk[] = [];
    if (root) {
      for (const model of await entriesOf(root, dir, "directory")) {
        const versions = await entriesOf(root, model.path, "directory");
        const read = await Promise.all(
          versions.map((version) => readVersion(root, model.name, version.name)),
        );
        for (const version of read) if (version) found.push(version);
      }
    }
    const inUse = new Set(found.flatMap(({ headerFile }) => (headerFile ? [headerFile.path] : [])));
    for (const path of headers.keys()) if (!inUse.has(path)) headers.delete(path);
    const scanned = found.map((version) => ({ view: withDigests(version), complete: version.complete }));
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
    misplaced: async () => {
      const root = await realRoot(dir);
      if (!root) return [];
      const found = (await entriesOf(root, dir, "file")).map((f) => misplacedFile(dir, [f.name]));
      for (const model of await entriesOf(root, dir, "directory"))
        for (const f of await entriesOf(root, model.path, "file"))
          found.push(misplacedFile(dir, [model.name, f.name]));
      return found.filter((f): f is MisplacedFile => f !== null);
    },
  };
}

function completeOrFailed(entry: DiskEntry): MirrorFile {
  if (entry.error) {
    return {
      file: entry.name,
      bytesDone: 0,
      bytesTotal: null,
      state: "failed",
      error: entry.error,
      sha256: null,
    };
  }
  return {
    file: entry.name,
    bytesDone: entry.size,
    bytesTotal: entry.size,
    state: "complete",
    error: null,
    sha256: null,
  };
}

async function realRoot(dir: string): Promise<string | null> {
  return realpath(dir).catch(() => null);
}

/**
 * The visible entries of one kind in a directory. Symlinks count when they stay inside the mirror.
 * A file that cannot be read is kept with its error (the operator must see it); one that vanished
 * between listing and looking is gone.
 */
async function entriesOf(root: string, path: string, kind: "file" | "directory"): Promise<DiskEntry[]> {
  const dirents = await readdir(path, { withFileTypes: true }).catch(() => []);
  const entries = await Promise.all(
    dirents.map(async (dirent): Promise<DiskEntry | null> => {
      if (!isSafeSegment(dirent.name)) return null;
      const entryPath = join(path, dirent.name);
      if (dirent.isSymbolicLink() && !(await realPathInside(root, entryPath))) return null;
      try {
        const stats = await stat(entryPath);
        const isKind = kind === "file" ? stats.isFile() : stats.isDirectory();
        if (!isKind) return null;
        return { name: dirent.name, path: entryPath, size: stats.size, mtimeMs: stats.mtimeMs, error: null };
      } catch (err) {
        if (errorCode(err) === "ENOENT" || kind === "directory") return null;
        const message = err instanceof Error ? err.message : String(err);
        return { name: dirent.name, path: entryPath, size: 0, mtimeMs: 0, error: message };
      }
    }),
  );
  return entries
    .filter((entry): entry is DiskEntry => entry !== null)
    .sort((a, b) => compareNames(a.name, b.name));
}

/** The byte count a `.size` file promises; null when it holds anything but one whole number. */
async function expectedBytes(sizeFile: DiskEntry): Promise<number | null> {
  if (sizeFile.error || sizeFile.size > 64) return null;
  const text = await readFile(sizeFile.path, "utf8").catch(() => "");
  const trimmed = text.trim();
  return /^\d{1,16}$/.test(trimmed) ? Number(trimmed) : null;
}

/** Plain code-point order, so "first file" means the same on every machine and locale. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function errorCode(err: unknown): string | undefined {
  return err instanceof Error && "code" in err && typeof err.code === "string" ? err.code : undefined;
}

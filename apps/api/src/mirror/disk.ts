import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  compareText,
  type GgufHeader,
  ggufSummary,
  type MirrorFile,
  type MirrorVersion,
  type MisplacedFile,
  misplacedFile,
} from "@llmgw/domain";
import { GENERATED_SUFFIX, isSafeSegment, PART_SUFFIX, realPathInside, SIZE_SUFFIX } from "./paths";

// The mirror as it is on disk: `<dir>/<model>/<version>/<file>`, a download's `.part` and `.size`
// beside it (and a generated stand-in's `.generated` mark), symlinks only where they stay inside the mirror. Read, never written.

export interface DiskEntry {
  name: string;
  path: string;
  size: number;
  mtimeMs: number;
  error: string | null;
}

export interface VersionOnDisk {
  view: MirrorVersion;
  /** The file whose header describes the version, when it is there in full. */
  headerFile: DiskEntry | null;
  /**
   * Its complete files as found on disk, the ones a digest is kept for: a file marked as a
   * generated stand-in (`<file>.generated`) is never hashed, so it is not among them.
   */
  complete: DiskEntry[];
}

/**
 * One version as it is on disk now: its files (complete, downloading or failed) in name order, and
 * the summary of its first .gguf file's header once that file is complete (`headerFor` reads it).
 */
export async function readVersion(
  where: { root: string; dir: string },
  model: string,
  version: string,
  headerFor: (file: DiskEntry) => Promise<GgufHeader>,
): Promise<VersionOnDisk | null> {
  const { root, dir } = where;
  const versionDir = await realPathInside(root, join(dir, model, version));
  if (!versionDir) return null;
  const entries = await entriesOf(root, versionDir, "file");
  const byName = new Map(entries.map((entry) => [entry.name, entry]));
  const files: { file: MirrorFile; disk: DiskEntry | null }[] = [];
  for (const entry of entries) {
    if (entry.name.endsWith(SIZE_SUFFIX) || entry.name.endsWith(GENERATED_SUFFIX)) continue;
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
  files.sort((a, b) => compareText(a.file.file, b.file.file));
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
    complete: files.flatMap(({ disk }) => (disk && !byName.has(disk.name + GENERATED_SUFFIX) ? [disk] : [])),
  };
}

/** Weights files not at `<model>/<version>/<file>` (at the root, or in a model's folder), each with where to move it. */
export async function misplacedFiles(dir: string): Promise<MisplacedFile[]> {
  const root = await realRoot(dir);
  if (!root) return [];
  const found = (await entriesOf(root, dir, "file")).map((f) => misplacedFile(dir, [f.name]));
  for (const model of await entriesOf(root, dir, "directory"))
    for (const f of await entriesOf(root, model.path, "file"))
      found.push(misplacedFile(dir, [model.name, f.name]));
  return found.filter((f): f is MisplacedFile => f !== null);
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

export async function realRoot(dir: string): Promise<string | null> {
  return realpath(dir).catch(() => null);
}

/**
 * The visible entries of one kind in a directory. Symlinks count when they stay inside the mirror.
 * A file that cannot be read is kept with its error (the operator must see it); one that vanished
 * between listing and looking is gone.
 */
export async function entriesOf(
  root: string,
  path: string,
  kind: "file" | "directory",
): Promise<DiskEntry[]> {
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
    .sort((a, b) => compareText(a.name, b.name));
}

/** The byte count a `.size` file promises; null when it holds anything but one whole number. */
async function expectedBytes(sizeFile: DiskEntry): Promise<number | null> {
  if (sizeFile.error || sizeFile.size > 64) return null;
  const text = await readFile(sizeFile.path, "utf8").catch(() => "");
  const trimmed = text.trim();
  return /^\d{1,16}$/.test(trimmed) ? Number(trimmed) : null;
}

function errorCode(err: unknown): string | undefined {
  return err instanceof Error && "code" in err && typeof err.code === "string" ? err.code : undefined;
}

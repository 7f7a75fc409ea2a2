import { readdir, readFile, rm, stat, statfs, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** What the disk under the cache holds, in bytes. */
export type DiskSpace = { freeBytes: number; totalBytes: number };
export type SpaceProbe = (dir: string) => Promise<DiskSpace>;

/** The free space a process without root may use (`bavail`), and the disk's size. */
export const statfsSpace: SpaceProbe = async (dir) => {
  const s = await statfs(dir);
  return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
};

/**
 * In each version directory: what the agent has checked of its files, so a cached file is hashed
 * once, not on every start; its mtime is when a replica last used the version (least recently
 * used goes first, SPEC §8.5). A file whose size or mtime moved since is checked again.
 */
export const MARKER = ".llmgw-cache.json";

export type Checked = { bytes: number; sha256: string; mtimeMs: number };
type Marker = { files: Record<string, Checked> };

export async function readMarker(versionDir: string): Promise<Marker> {
  try {
    const raw: unknown = JSON.parse(await readFile(join(versionDir, MARKER), "utf8"));
    if (
      typeof raw === "object" &&
      raw !== null &&
      "files" in raw &&
      typeof raw.files === "object" &&
      raw.files
    )
      return { files: raw.files as Record<string, Checked> };
  } catch {
    // None yet, or unreadable: every file is checked again.
  }
  return { files: {} };
}

/** Records one checked file; writes to one marker go one at a time (`chain` per directory). */
export function recordChecked(
  chains: Map<string, Promise<void>>,
  versionDir: string,
  path: string,
  checked: Checked,
): Promise<void> {
  const next = (chains.get(versionDir) ?? Promise.resolve()).then(async () => {
    const marker = await readMarker(versionDir);
    marker.files[path] = checked;
    await writeFile(join(versionDir, MARKER), JSON.stringify(marker));
  });
  chains.set(
    versionDir,
    next.catch(() => undefined),
  );
  return next;
}

/** Marks a version used now (creating its marker when it has none). */
export async function touchVersion(versionDir: string): Promise<void> {
  const marker = join(versionDir, MARKER);
  const now = new Date();
  await utimes(marker, now, now).catch(() => writeFile(marker, JSON.stringify({ files: {} })));
}

type CachedVersion = { dir: string; usedMs: number; bytes: number };

/** The versions in the cache (`<model>/<version>`), with when each was last used and its size. */
export async function cachedVersions(cacheDir: string): Promise<CachedVersion[]> {
  const versions: CachedVersion[] = [];
  for (const model of await dirsIn(cacheDir)) {
    for (const version of await dirsIn(join(cacheDir, model))) {
      const dir = join(cacheDir, model, version);
      const used = await stat(join(dir, MARKER)).catch(() => stat(dir));
      versions.push({ dir, usedMs: used.mtimeMs, bytes: await bytesUnder(dir) });
    }
  }
  return versions;
}

/**
 * Deletes versions, least recently used first, sparing `kept` (in use or downloading), until
 * `enough` says so or nothing is left to delete. Returns the directories deleted and what the
 * cache holds after.
 */
export async function evict(
  cacheDir: string,
  kept: ReadonlySet<string>,
  enough: (cacheBytes: number) => Promise<boolean>,
): Promise<{ deleted: string[]; cacheBytes: number }> {
  const versions = await cachedVersions(cacheDir);
  let cacheBytes = versions.reduce((sum, v) => sum + v.bytes, 0);
  const deleted: string[] = [];
  const candidates = versions.filter((v) => !kept.has(v.dir)).sort((a, b) => a.usedMs - b.usedMs);
  for (const victim of candidates) {
    if (await enough(cacheBytes)) break;
    await rm(victim.dir, { recursive: true, force: true });
    cacheBytes -= victim.bytes;
    deleted.push(victim.dir);
  }
  return { deleted, cacheBytes };
}

async function dirsIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory()).map((e) => e.name);
}

async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile())
      total += await stat(join(entry.parentPath, entry.name)).then(
        (s) => s.size,
        () => 0,
      );
  }
  return total;
}

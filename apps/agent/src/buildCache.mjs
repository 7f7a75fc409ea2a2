// What the agent's bundle (bundle.ts) and the `llmgw` command's (scripts/cli-bundle.mjs) share: a
// build kept in node_modules/.cache/llmgw/ with the size and mtime of every file it was built
// from, found again while none changed. Plain JavaScript, so the command's launcher can run it
// before anything is transpiled.
import { readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Each file's size and modification time (`root` joined before a relative path). */
export function stampsOf(files, root = "") {
  const stamps = {};
  for (const file of files) {
    const found = statSync(join(root, file), { throwIfNoEntry: false });
    stamps[file] = found ? `${found.size}:${found.mtimeMs}` : "missing";
  }
  return stamps;
}

/**
 * The manifest at `path` when `current` accepts it (its recipe, tools, version) and every file it
 * was built from is as it was; null otherwise.
 */
export function freshManifest(path, current, root = "") {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
  if (typeof manifest?.stamps !== "object" || manifest.stamps === null || !current(manifest)) return null;
  const now = stampsOf(Object.keys(manifest.stamps), root);
  return Object.entries(manifest.stamps).every(([file, stamp]) => now[file] === stamp) ? manifest : null;
}

/**
 * Makes `manifest` the current one, written whole then renamed, unless a file it names was edited
 * after the build `started`: that build serves this process, and the next start builds again.
 * True when it was kept.
 */
export function keepManifest(path, manifest, started) {
  if (Object.values(manifest.stamps).some((stamp) => Number(stamp.split(":")[1]) >= started)) return false;
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(manifest));
  renameSync(partial, path);
  return true;
}

/** Builds of `prefix` older than a minute, but `current`: a process that runs one has read it already. */
export function removeOldBuilds(dir, prefix, current) {
  const minuteAgo = Date.now() - 60_000;
  for (const file of readdirSync(dir)) {
    if (!file.startsWith(prefix) || file.startsWith(current)) continue;
    const path = join(dir, file);
    try {
      if (statSync(path).mtimeMs < minuteAgo) unlinkSync(path);
    } catch {
      // Removed by another process meanwhile.
    }
  }
}

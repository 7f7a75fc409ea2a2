import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { openAsBlob, readFileSync } from "node:fs";
import { access } from "node:fs/promises";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/**
 * Postgres sizes its shared memory for a server: initdb's 128 MB of shared buffers are allocated,
 * and touched, at every start, the largest part of the process's resident memory. The store holds
 * a few MB; pages past the buffers are read back from the OS's page cache. Given at every start,
 * so databases created with the old setting use these too. Durability is untouched: a commit
 * still reaches the files before it is acknowledged.
 */
const SETTINGS = ["shared_buffers=16MB"];

export const settingsArgs = SETTINGS.flatMap((setting) => ["-c", setting]);

/**
 * What a new data directory starts from, when there is one: an empty database, as initdb makes it,
 * cached per user (initdb takes several seconds of CPU; loading the copy, a fraction of one), and
 * keyed by the PGlite version and the settings. Without a copy yet, a child process runs initdb in
 * `path` and leaves the copy for next time: PGlite runs initdb in a second Postgres instance with
 * a copy of its whole heap, several hundred MB that a process keeps for long after (RSS 560 MB
 * after, against 180 MB when opening an existing directory).
 */
export async function newDataDir(path: string): Promise<Blob | undefined> {
  if (await exists(join(path, "PG_VERSION"))) return undefined;
  const template = templatePath();
  // Backed by the file: read once, by PGlite, rather than held in memory twice. Node 20's
  // openAsBlob throws (not rejects) for a missing file: a fresh machine has no copy yet.
  const copy = await Promise.resolve()
    .then(() => openAsBlob(template))
    .catch(() => undefined);
  if (copy !== undefined) return copy;
  const script = fileURLToPath(new URL("./pglite-initdb.mjs", import.meta.url));
  const initdbArgs = SETTINGS.flatMap((setting) => ["--set", setting]);
  await promisify(execFile)(process.execPath, [script, path, template, ...initdbArgs]);
  return undefined;
}

function templatePath(): string {
  const entry = createRequire(fileURLToPath(import.meta.url)).resolve("@electric-sql/pglite");
  const { version } = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as {
    version: string;
  };
  const key = createHash("sha256").update(JSON.stringify({ version, SETTINGS })).digest("hex").slice(0, 16);
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(cache, "llmgw", `pglite-empty-${key}.tar`);
}

function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

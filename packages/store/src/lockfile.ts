import { open, readFile, unlink } from "node:fs/promises";
import { resolve } from "node:path";

/** Paths this process holds: its own pid in a lock file means "mine" only for these. */
const held = new Set<string>();

/**
 * PGlite takes no lock on its data directory: a second process opens it without complaint, and each
 * then overwrites the other's pages (seen in testing: one process's commits vanished). So the store
 * holds `<path>.lock` with its pid while open, and refuses a lock whose process is still alive.
 * A lock left by a crash names a dead process (or this very pid, after a container restart) and is
 * taken over.
 */
export async function lockDataDir(path: string): Promise<() => Promise<void>> {
  const lockPath = `${resolve(path)}.lock`;
  if (held.has(lockPath)) throw new Error(`${path} is already open in this process`);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const file = await open(lockPath, "wx");
      await file.writeFile(`${process.pid}\n`);
      await file.close();
      held.add(lockPath);
      return async () => {
        held.delete(lockPath);
        await unlink(lockPath).catch(() => undefined);
      };
    } catch (err) {
      if (!isCode(err, "EEXIST")) throw err;
    }
    const holder = Number.parseInt(await readFile(lockPath, "utf8").catch(() => ""), 10);
    if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
      throw new Error(`${path} is in use by process ${holder} (lock file ${lockPath})`);
    }
    // Stale: remove it and race the other starters for a fresh one; `wx` lets only one create it.
    // (Two starters both finding the same stale lock can still both proceed; the window is tiny.)
    await unlink(lockPath).catch(() => undefined);
  }
  throw new Error(`could not take the lock ${lockPath}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return isCode(err, "EPERM");
  }
}

function isCode(err: unknown, code: string): boolean {
  return err instanceof Error && "code" in err && err.code === code;
}

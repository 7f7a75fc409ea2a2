import { rename, rm, rmdir } from "node:fs/promises";
import { dirname } from "node:path";
import { PART_SUFFIX, SIZE_SUFFIX } from "../mirror/paths";

// SPEC §10.5a: what a pull leaves on disk, placed or removed, without an error of the disk ever
// leaving the pull. `fs.rm(…, { force: true })` ignores only ENOENT: a name too long (ENAMETOOLONG),
// a file where a folder should be (ENOTDIR) or a permission still throw, and one such throw out of
// the cleanup used to end the process. Cleanup here tries every path and says what it could not do.

export const partOf = (dest: string) => dest + PART_SUFFIX;
export const sizeFileOf = (dest: string) => dest + SIZE_SUFFIX;

/** Why a file-system call failed, in a few words: its code and call, not a stack. */
export function diskProblem(err: unknown): string {
  if (err instanceof Error && "code" in err && typeof err.code === "string") {
    const call = "syscall" in err && typeof err.syscall === "string" ? `${err.syscall} ` : "";
    const path = "path" in err && typeof err.path === "string" ? ` (${err.path})` : "";
    return `${call}${err.code}${path}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/**
 * Moves each checked `.part` to its final name and drops its `.size`: the pull is in the mirror.
 * A rename that fails moves back the ones already placed, so a failed pull has no file at a final
 * path, and throws why.
 */
export async function placeFiles(files: readonly { dest: string }[]): Promise<void> {
  const placed: string[] = [];
  try {
    for (const { dest } of files) {
      await rename(partOf(dest), dest);
      placed.push(dest);
    }
  } catch (err) {
    for (const dest of placed) await rename(dest, partOf(dest)).catch(() => undefined);
    throw err;
  }
  for (const { dest } of files) await rm(sizeFileOf(dest), { force: true }).catch(() => undefined);
}

/**
 * Removes what a pull that failed or was cancelled wrote: its `.part` and `.size` files, and the
 * version's and model's folders when that leaves them empty. Final files are never touched. Never
 * throws: every path is tried, and the first problem is returned (null when there was none).
 */
export async function removeLeftovers(files: readonly { dest: string }[]): Promise<string | null> {
  let problem: string | null = null;
  const attempt = async (work: Promise<unknown>) => {
    await work.catch((err: unknown) => {
      problem ??= `cleaning up failed: ${diskProblem(err)}`;
    });
  };
  for (const { dest } of files) {
    await attempt(rm(partOf(dest), { force: true }));
    await attempt(rm(sizeFileOf(dest), { force: true }));
  }
  // Not empty, or not a folder: either way it is not ours to remove.
  const dirs = new Set(files.map((f) => dirname(f.dest)));
  for (const dir of dirs) {
    await rmdir(dir).catch(() => undefined);
    await rmdir(dirname(dir)).catch(() => undefined);
  }
  return problem;
}

/** Codes only a file system gives (ECONNRESET and its kind are the network's, whatever the call). */
const DISK_CODES = new Set([
  "EACCES",
  "EDQUOT",
  "EEXIST",
  "EIO",
  "EISDIR",
  "ELOOP",
  "EMFILE",
  "ENAMETOOLONG",
  "ENFILE",
  "ENOSPC",
  "ENOTDIR",
  "ENOTEMPTY",
  "EPERM",
  "EROFS",
  "ERR_FS_EISDIR",
]);

/** An error of the disk, not of the network: the pull's reason says so, not "cannot reach the Hub". */
export function isDiskError(err: unknown): boolean {
  if (!(err instanceof Error) || !("code" in err)) return false;
  return ("path" in err && typeof err.path === "string") || DISK_CODES.has(String(err.code));
}

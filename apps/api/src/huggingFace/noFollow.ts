import { constants } from "node:fs";
import { type FileHandle, lstat, open } from "node:fs/promises";

// SPEC §10.5a: the writer never writes through a symlink. A `.part` or `.size` that is a symlink
// would have the Hub's bytes appended to, or a size written over, whatever it points at, inside
// the mirror or not. Each is opened with O_NOFOLLOW (the kernel refuses a symlink as the last
// component, with no window between a check and the open) and sized with lstat.

/** A `.part` or `.size` is a symlink: the pull fails naming it, and its target is left as it is. */
export class SymlinkRefused extends Error {
  constructor(readonly path: string) {
    super(`${path} is a symlink: llmgw does not write through one (remove it and pull again)`);
  }
}

const { O_WRONLY, O_CREAT, O_APPEND, O_TRUNC, O_NOFOLLOW } = constants;

/** Opens `path` to append (`.part`) or to replace (`.size`), never following a symlink. */
export async function openNoFollow(path: string, how: "append" | "replace"): Promise<FileHandle> {
  const flags = O_WRONLY | O_CREAT | O_NOFOLLOW | (how === "append" ? O_APPEND : O_TRUNC);
  try {
    return await open(path, flags, 0o644);
  } catch (err) {
    if (err instanceof Error && "code" in err && err.code === "ELOOP") throw new SymlinkRefused(path);
    throw err;
  }
}

/** Writes `text` as the whole of `path`, never through a symlink. */
export async function writeNoFollow(path: string, text: string): Promise<void> {
  const handle = await openNoFollow(path, "replace");
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

/** The bytes a regular file holds (0 when there is none); a symlink is refused, not measured. */
export async function sizeNoFollow(path: string): Promise<number> {
  const found = await lstat(path).catch((err: unknown) => {
    if (err instanceof Error && "code" in err && err.code === "ENOENT") return null;
    throw err;
  });
  if (found?.isSymbolicLink()) throw new SymlinkRefused(path);
  return found?.size ?? 0;
}

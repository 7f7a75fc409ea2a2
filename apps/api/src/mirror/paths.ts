import { realpath } from "node:fs/promises";
import { sep } from "node:path";

/**
 * A name that can be one segment of a mirror path: no separators, no `.`/`..`, no NUL, and not
 * hidden — dot files are a downloader's scratch, never a model, a version or a weights file.
 */
export function isSafeSegment(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= 255 &&
    !name.startsWith(".") &&
    !name.includes("/") &&
    !name.includes("\\") &&
    !name.includes("\0")
  );
}

/**
 * The file names the layout reserves: a download in progress, its expected size, and the mark of
 * a generated stand-in (`x.gguf.generated` beside `x.gguf`: the demo's sparse weights, whose
 * digest would be of zeros no disk holds, so the mirror does not read them for one).
 */
export const PART_SUFFIX = ".part";
export const SIZE_SUFFIX = ".size";
export const GENERATED_SUFFIX = ".generated";

export function isBookkeeping(name: string): boolean {
  return name.endsWith(PART_SUFFIX) || name.endsWith(SIZE_SUFFIX) || name.endsWith(GENERATED_SUFFIX);
}

/**
 * Where `path` really is, when that is inside `root` (itself a real path); null otherwise or when
 * it does not exist. Symlinks inside the mirror are fine (deduplicated weights); one that leads out
 * of it would let a URL read any file the server can.
 */
export async function realPathInside(root: string, path: string): Promise<string | null> {
  try {
    const real = await realpath(path);
    const prefix = root.endsWith(sep) ? root : root + sep;
    return real.startsWith(prefix) ? real : null;
  } catch {
    return null;
  }
}

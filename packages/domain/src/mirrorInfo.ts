import { z } from "zod";
import { engineFor } from "./servePlan";

/**
 * A weights file the mirror cannot list because it is not at `<model>/<version>/<file>`: `path`
 * is where it is, relative to the mirror; `fix` says where to move it.
 */
export const misplacedFileSchema = z.object({ path: z.string(), fix: z.string() });
export type MisplacedFile = z.infer<typeof misplacedFileSchema>;

/** Where the mirror is and what in it is misplaced (`GET /api/v1/mirror/info`): the first-run guide's words. */
export const mirrorInfoSchema = z.object({
  dir: z.string(),
  layout: z.string(),
  misplaced: z.array(misplacedFileSchema),
});
export type MirrorInfo = z.infer<typeof mirrorInfoSchema>;

export const MIRROR_LAYOUT = "<model>/<version>/<file>";

/**
 * What to do about a file at `segments` under the mirror `dir` (a file at the root, or one level
 * down in a model's folder); null when it is where it belongs, or is no weights file an engine
 * reads (the serve plan's rule, so other stray files are not worth a word).
 */
export function misplacedFile(dir: string, segments: readonly string[]): MisplacedFile | null {
  const file = segments[segments.length - 1];
  if (file === undefined || engineFor(file) === null || segments.length >= 3) return null;
  const root = dir.replace(/\/+$/, "");
  const model = segments.length === 2 ? segments[0] : "<model>";
  return {
    path: segments.join("/"),
    fix: `move ${segments.join("/")} to ${root}/${model}/<version>/${file}`,
  };
}

import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "../errors";

// SPEC §10.5a: a pull writes into `<mirror>/<model>/<version>/`. A model or version path that is
// already a file, a symlink or anything but a folder is refused (409 `path_taken`) before a byte
// is written: writing through it would fail half-way (ENOTDIR) or land outside the mirror.

/** Throws 409 `path_taken` when the model's or the version's path exists as anything but a folder. */
export async function checkPlace(dir: string, pull: { model: string; version: string }): Promise<void> {
  for (const [what, rel] of [
    ["model", pull.model],
    ["version", join(pull.model, pull.version)],
  ] as const) {
    const found = await lstat(join(dir, rel)).catch((err: unknown) => {
      if (err instanceof Error && "code" in err && err.code === "ENOENT") return null;
      throw err;
    });
    if (found && !found.isDirectory()) {
      const kind = found.isSymbolicLink() ? "a symlink" : "a file";
      throw new AppError({
        code: "path_taken",
        message: `the mirror's ${what} path ${rel} is ${kind}, not a folder: remove it or pull into another ${what}`,
      });
    }
  }
}

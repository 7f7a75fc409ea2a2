import { createHash } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS } from "./migrations";
import { openPglite } from "./pglite";
import { openStore, type Store, type StoreOptions, storeOn } from "./store";

const TEMPLATE = join(
  tmpdir(),
  `llmgw-store-template-${createHash("sha256").update(JSON.stringify(MIGRATIONS)).digest("hex").slice(0, 16)}.tar`,
);

/**
 * A store for tests. With `databaseUrl` it is openStore. Otherwise an in-memory PGlite started from
 * a migrated template cached in the temp directory: a fresh PGlite runs initdb, several seconds per
 * test file, while loading the template takes about one. The file name covers the migrations, so a
 * new migration makes a new template.
 */
export async function openTestStore(options: StoreOptions = {}): Promise<Store> {
  if (options.databaseUrl !== undefined && options.databaseUrl !== "") return openStore(options);
  const cached = await readFile(TEMPLATE).catch(() => undefined);
  if (cached !== undefined) {
    try {
      return await storeOn(await openPglite(undefined, new Blob([cached])));
    } catch {
      // Written by another PGlite version, or cut short: build it again below.
    }
  }
  const db = await openPglite();
  const store = await storeOn(db);
  const tarball = new Uint8Array(await (await db.snapshot()).arrayBuffer());
  // Write then rename, so a test file starting meanwhile never reads half a template.
  const partial = `${TEMPLATE}.${process.pid}.part`;
  await writeFile(partial, tarball);
  await rename(partial, TEMPLATE);
  return store;
}

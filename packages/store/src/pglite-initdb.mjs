// `node pglite-initdb.mjs <dataDir> <template> [initdb arguments]`: creates a PGlite database in
// dataDir and saves a copy of it, empty, as the template file (see pgliteFiles.ts). Its own process
// so the server never holds initdb's memory.
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { PGlite } from "@electric-sql/pglite";

const [dataDir, template, ...initDbStartParams] = process.argv.slice(2);
const pg = await PGlite.create({ dataDir, initDbStartParams });
try {
  const copy = new Uint8Array(await (await pg.dumpDataDir("none")).arrayBuffer());
  await mkdir(dirname(template), { recursive: true, mode: 0o700 });
  // Write then rename: a server starting meanwhile never reads half a copy.
  const partial = `${template}.${process.pid}.part`;
  await writeFile(partial, copy, { mode: 0o600 });
  await rename(partial, template);
} catch (err) {
  // Only a cache: the next new data directory runs initdb again.
  process.stderr.write(`llmgw: could not save an empty database for next time: ${err}\n`);
}
await pg.close();

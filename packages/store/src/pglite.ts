import { mkdir } from "node:fs/promises";
import { setImmediate as nextTurn } from "node:timers/promises";
import { PGlite, TransactionAbortedError } from "@electric-sql/pglite";
import { checkChannel, type Db, TransactionAborted, transactionScope } from "./db";
import { lockDataDir } from "./lockfile";
import { newDataDir, settingsArgs } from "./pgliteFiles";

/**
 * PGlite runs each statement on this thread, and its promises settle at once: without a pause, a
 * transaction and all that follows it (a heartbeat: validation, a few statements, the world's
 * patch, the events) runs as one task of tens of milliseconds, and every request arriving
 * meanwhile waits for its first byte behind it (SPEC §11.2: a rollout's writes hold up no
 * request). After each statement the event loop takes the I/O waiting (requests, engines'
 * chunks) before the next: the transaction keeps PGlite's lock, so nothing else of the store
 * runs in between.
 */
async function afterTurn<T>(value: T): Promise<T> {
  await nextTurn();
  return value;
}

const INT8 = 20;
const NUMERIC = 1700;

/**
 * PGlite, embedded: one Postgres in WASM, one connection. Its `transaction()` holds a mutex, so
 * transactions (and plain queries) run one at a time, in the order they were asked for.
 * `path` is a directory on disk (created when missing, locked while open: one process at a time);
 * without it the database lives in memory, started from `from` (a dumpDataDir tarball) when given.
 */
export async function openPglite(path?: string, from?: Blob): Promise<Db & { snapshot(): Promise<Blob> }> {
  let unlock = async () => {};
  if (path !== undefined) {
    await mkdir(path, { recursive: true });
    unlock = await lockDataDir(path);
  }
  let pg: PGlite;
  try {
    const load = from ?? (path === undefined ? undefined : await newDataDir(path));
    pg = await PGlite.create({
      ...(path === undefined ? {} : { dataDir: path }),
      ...(load === undefined ? {} : { loadDataDir: load }),
      // Match node-postgres as configured in postgres.ts: ids and counts as plain numbers.
      // PGlite already returns int8 as a number when it is safe, but a BigInt past 2^53.
      parsers: { [INT8]: Number, [NUMERIC]: Number },
      startParams: [...PGlite.defaultStartParams, ...settingsArgs],
    });
  } catch (err) {
    await unlock();
    throw err;
  }

  const db: Db & { snapshot(): Promise<Blob> } = {
    kind: "pglite",
    async query<T>(sql: string, params: readonly unknown[] = []) {
      return afterTurn((await pg.query<T>(sql, [...params])).rows);
    },
    async exec(sql) {
      await afterTurn(await pg.exec(sql));
    },
    async transaction(fn) {
      try {
        return await afterTurn(
          await pg.transaction((tx) =>
            fn(
              transactionScope("pglite", {
                query: async <T>(sql: string, params: readonly unknown[] = []) =>
                  afterTurn((await tx.query<T>(sql, [...params])).rows),
                exec: async (sql) => {
                  await afterTurn(await tx.exec(sql));
                },
              }),
            ),
          ),
        );
      } catch (err) {
        // Same error type as the node-postgres driver for a COMMIT that turned into a ROLLBACK.
        if (err instanceof TransactionAbortedError) throw new TransactionAborted();
        throw err;
      }
    },
    // One connection, one transaction at a time: any transaction already sees one moment.
    readTransaction: (fn) => db.transaction(fn),
    async listen(channel, cb) {
      const unlisten = await pg.listen(checkChannel(channel), cb);
      return () => unlisten();
    },
    async notify(channel, payload) {
      await pg.query("select pg_notify($1, $2)", [checkChannel(channel), payload]);
    },
    async close() {
      if (!pg.closed) await pg.close();
      await unlock();
    },
    // PGlite-only, for tests: the whole database as a tarball that `from` accepts.
    snapshot: () => pg.dumpDataDir("none"),
  };
  return db;
}

import { createHash, randomBytes } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "vitest";
import type { DbKind } from "../src/db";
import { MIGRATIONS } from "../src/migrations";
import { openPglite } from "../src/pglite";
import { openPostgres } from "../src/postgres";
import { openStore, type Store, type StoreOptions, storeOn } from "../src/store";

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

/** The PostgreSQL server tests may use, from TEST_DATABASE_URL; empty when there is none. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "";

/**
 * `describe` for cases that need PostgreSQL: registered whether or not there is a server and
 * reported as skipped without one, so a run counts the same tests either way. The run says once
 * how to include them (scripts/vitest-postgres.ts).
 */
export const describeOnPostgres = describe.skipIf(TEST_DATABASE_URL === "");

/**
 * A database of its own on the test server, so these tests never meet the store contract tests
 * (which empty database `test`) or each other. Drop it when done.
 */
export async function freshDatabase(
  base = TEST_DATABASE_URL,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `llmgw_${randomBytes(6).toString("hex")}`;
  const admin = await openPostgres(base);
  try {
    await admin.exec(`create database ${name}`);
  } finally {
    await admin.close();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const again = await openPostgres(base);
      try {
        await again.exec(`drop database if exists ${name} with (force)`);
      } finally {
        await again.close();
      }
    },
  };
}

/**
 * The store the API and CLI suites run on in this Vitest project (vitest.config.ts runs them once
 * per store): PGlite in memory, or a fresh database on TEST_DATABASE_URL's server.
 */
export const TEST_STORE: DbKind = process.env.LLMGW_TEST_STORE === "postgres" ? "postgres" : "pglite";

/** A database a suite runs on: PGlite in memory (no url), or the server at TEST_DATABASE_URL. */
export interface TestDatabase {
  kind: DbKind;
  url: string | null;
}

const TEST_DATABASES = [
  { name: "PGlite", database: { kind: "pglite", url: null } },
  { name: "PostgreSQL", database: { kind: "postgres", url: TEST_DATABASE_URL } },
] as const satisfies readonly { name: string; database: TestDatabase }[];

/**
 * One describe block per database, PostgreSQL always among them (as a describeOnPostgres), where
 * `describe.each` over only the available ones would register nothing without a server.
 * `$name` in the title becomes "PGlite" or "PostgreSQL".
 */
export function describeOnEachDatabase(title: string, body: (database: TestDatabase) => void): void {
  for (const { name, database } of TEST_DATABASES) {
    const register = database.kind === "postgres" ? describeOnPostgres : describe;
    register(title.replaceAll("$name", name), () => body(database));
  }
}

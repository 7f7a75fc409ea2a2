import { randomUUID } from "node:crypto";
import pg from "pg";
import type { DbKind } from "../src/db";
import type { Store, StoreOptions } from "../src/store";
import { openTestStore } from "../src/testing";

/**
 * A database a contract suite runs against. PGlite always (in memory); PostgreSQL when
 * TEST_DATABASE_URL is set, in a schema of its own, so suites and people sharing the server never
 * see each other's rows.
 */
export interface Backend {
  name: DbKind;
  /** Options for openStore; every call within one backend reaches the same database. */
  options(): Promise<StoreOptions>;
  dispose(): Promise<void>;
}

export function backends(): Backend[] {
  const url = process.env.TEST_DATABASE_URL;
  const list: Backend[] = [pgliteMemory()];
  if (url !== undefined && url !== "") list.push(postgresSchema(url));
  return list;
}

/** One store for a whole file (PGlite's start-up costs a second or more); tests call reset() instead. */
export async function openFor(backend: Backend): Promise<Store> {
  return openTestStore(await backend.options());
}

function pgliteMemory(): Backend {
  return { name: "pglite", options: async () => ({}), dispose: async () => {} };
}

function postgresSchema(baseUrl: string): Backend {
  const schema = `llmgw_test_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  let created: Promise<string> | undefined;
  const admin = async <T>(fn: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  return {
    name: "postgres",
    options() {
      created ??= admin(async (client) => {
        await client.query(`create schema ${schema}`);
        const url = new URL(baseUrl);
        url.searchParams.set("options", `-c search_path=${schema}`);
        return url.toString();
      });
      return created.then((databaseUrl) => ({ databaseUrl }));
    },
    async dispose() {
      if (created !== undefined) await admin((client) => client.query(`drop schema ${schema} cascade`));
    },
  };
}

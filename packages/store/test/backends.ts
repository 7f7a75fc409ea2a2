import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { DbKind } from "../src/db";
import type { Store, StoreOptions } from "../src/store";
import { openTestStore, TEST_DATABASE_URL } from "./testStore";

/**
 * A database a contract suite runs against: PGlite in memory, or PostgreSQL at TEST_DATABASE_URL
 * in a schema of its own, so suites and people sharing the server never see each other's rows.
 * Nothing connects before options(), so a skipped block may make one without a server.
 */
export interface Backend {
  name: DbKind;
  /** Options for openStore; every call within one backend reaches the same database. */
  options(): Promise<StoreOptions>;
  dispose(): Promise<void>;
}

export function backendFor(kind: DbKind): Backend {
  return kind === "postgres" ? postgresSchema(TEST_DATABASE_URL) : pgliteMemory();
}

/** One store for a whole file (PGlite's start-up costs a second or more); tests call reset() instead. */
export async function openFor(backend: Backend): Promise<Store> {
  return openTestStore(await backend.options());
}

/**
 * The store a describe block's tests share on `backend`: opened before them, emptied before each,
 * closed (and the backend disposed) after. The returned object stands for the store once open.
 */
export function useStore(backend: Backend, options: { reset?: boolean } = {}): Store {
  let current: Store | undefined;
  beforeAll(async () => {
    current = await openFor(backend);
  });
  afterAll(async () => {
    await current?.close();
    await backend.dispose();
  });
  if (options.reset !== false) beforeEach(() => current?.reset());
  return new Proxy({} as Store, {
    get(_target, key) {
      if (current === undefined) throw new Error("the test store is not open yet");
      return Reflect.get(current, key);
    },
  });
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

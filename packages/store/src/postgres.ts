import pg from "pg";
import { checkChannel, type Db, type Queryable, TransactionAborted, transactionScope } from "./db";

const INT8 = 20;
const NUMERIC = 1700;

// Per pool, not pg.types.setTypeParser: that would change every other pg user in the process.
// The store keeps only small integers in int8 (ids, counts), so Number loses nothing.
const types: pg.CustomTypesConfig = {
  getTypeParser: (oid, format) =>
    oid === INT8 || oid === NUMERIC ? Number : pg.types.getTypeParser(oid, format),
};

/** A PostgreSQL server through a node-postgres pool; a transaction holds one pooled client. */
export async function openPostgres(url: string): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, types, max: 10 });
  // Whole-picture reads on connections of their own: a reader must not queue behind every writer
  // waiting for the main pool (under load that queue is where a snapshot's time went).
  const reads = new pg.Pool({ connectionString: url, types, max: 2 });
  reads.on("error", () => {});
  // An idle client losing its connection emits here; the pool already drops that client, and an
  // unhandled 'error' event would kill the process.
  pool.on("error", () => {});
  // Fail at start-up, with the server's message, rather than on the first request.
  await pool.query("select 1");

  const notifications = notificationHub(url);

  return {
    kind: "postgres",
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const result = await pool.query(sql, [...params]);
      return result.rows as T[];
    },
    async exec(sql) {
      await pool.query(sql);
    },
    transaction: (fn) => inTransaction(pool, "begin", fn),
    readTransaction: (fn) => inTransaction(reads, "begin isolation level repeatable read, read only", fn),
    listen: async (channel, cb) => notifications.listen(checkChannel(channel), cb),
    async notify(channel, payload) {
      await pool.query("select pg_notify($1, $2)", [checkChannel(channel), payload]);
    },
    async close() {
      await notifications.close();
      await Promise.all([pool.end(), reads.end()]);
    },
  };
}

/** Runs `fn` in a transaction on one of `pool`'s clients, opened with `begin`. */
async function inTransaction<T>(pool: pg.Pool, begin: string, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let reusable = true;
  try {
    await client.query(begin);
    const result = await fn(
      transactionScope("postgres", {
        query: async <R>(sql: string, params: readonly unknown[] = []) =>
          (await client.query(sql, [...params])).rows as R[],
        exec: async (sql) => {
          await client.query(sql);
        },
      }),
    );
    // PostgreSQL answers COMMIT of an aborted transaction with ROLLBACK and no error; PGlite
    // throws. Throw here too so a swallowed failure never looks like a commit.
    const commit = await client.query("commit");
    if (commit.command === "ROLLBACK") throw new TransactionAborted();
    return result;
  } catch (err) {
    // After a failed COMMIT this only warns "no transaction in progress"; if it fails, the
    // connection is in an unknown state and must not go back to the pool.
    await client.query("rollback").catch(() => {
      reusable = false;
    });
    throw err;
  } finally {
    client.release(!reusable);
  }
}

/**
 * LISTEN needs a connection of its own that stays open (a pooled one would be handed to queries).
 * Opened on the first listen. If that connection drops (a server restart, a terminated backend),
 * the subscriptions are made again on a new one, retrying every second: without that a process
 * would stop hearing other processes for good. Notifications sent meanwhile are lost; callers that
 * must not miss events re-read from the event table anyway.
 */
function notificationHub(url: string) {
  const lostClients = new WeakSet<pg.Client>();
  const callbacks = new Map<string, Set<(payload: string) => void>>();
  let connecting: Promise<pg.Client> | undefined;
  let closed = false;
  let retry: ReturnType<typeof setTimeout> | undefined;

  function resubscribe(): void {
    retry = undefined;
    if (closed || callbacks.size === 0) return;
    connect()
      .then(async (client) => {
        for (const channel of callbacks.keys()) await client.query(`listen ${channel}`);
      })
      .catch(() => {
        connecting = undefined;
        retry ??= setTimeout(resubscribe, 1000);
        retry.unref?.();
      });
  }

  function connect(): Promise<pg.Client> {
    if (connecting !== undefined) return connecting;
    const client = new pg.Client({ connectionString: url, types });
    let attempt: Promise<pg.Client> | undefined;
    const forget = () => {
      if (connecting === attempt) connecting = undefined;
    };
    client.on("notification", (msg) => {
      for (const cb of callbacks.get(msg.channel) ?? []) cb(msg.payload ?? "");
    });
    const lost = () => {
      if (lostClients.has(client)) return;
      lostClients.add(client);
      client.end().catch(() => undefined);
      forget();
      if (!closed) retry ??= setTimeout(resubscribe, 100);
    };
    client.on("error", lost);
    client.on("end", lost);
    attempt = client.connect().then(
      () => client,
      (err: unknown) => {
        forget();
        throw err;
      },
    );
    connecting = attempt;
    return attempt;
  }

  return {
    async listen(channel: string, cb: (payload: string) => void) {
      const client = await connect();
      let set = callbacks.get(channel);
      if (set === undefined) {
        set = new Set();
        callbacks.set(channel, set);
        await client.query(`listen ${channel}`);
      }
      set.add(cb);
      return async () => {
        const current = callbacks.get(channel);
        if (current === undefined || !current.delete(cb) || current.size > 0) return;
        callbacks.delete(channel);
        await (await connect()).query(`unlisten ${channel}`);
      };
    },
    async close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      const pending = connecting;
      connecting = undefined;
      callbacks.clear();
      if (pending !== undefined) await (await pending).end();
    },
  };
}

// The one seam between llmgw and a database. Two drivers implement it (PGlite, node-postgres) and
// every repository is written against it, so the same SQL runs on both.

export type DbKind = "pglite" | "postgres";

/** What a repository needs: the database itself, or a transaction inside it. */
export interface Queryable {
  readonly kind: DbKind;
  /** One statement, `$1…$n` parameters. Rows come back with int8/numeric as numbers, jsonb parsed. */
  query<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Several statements, no parameters (migrations, truncation). */
  exec(sql: string): Promise<void>;
  /**
   * Runs `fn` in a transaction: committed when it resolves, rolled back when it throws.
   * Called on a transaction it opens a savepoint, so a failed inner step (a name clash, say) can be
   * caught and the outer transaction carries on. Inside `fn`, use only `tx`: on PGlite a query
   * through the outer Db waits for this transaction to end, which never happens.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
}

export type Unlisten = () => Promise<void>;

export interface Db extends Queryable {
  /**
   * A read-only transaction that sees one moment (repeatable read on PostgreSQL, where it runs on
   * connections of its own so that a reader never waits behind queued writers).
   */
  readTransaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** LISTEN on a channel; `cb` gets each NOTIFY payload (after the notifying transaction commits). */
  listen(channel: string, cb: (payload: string) => void): Promise<Unlisten>;
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

/** The statements each driver runs to drive one transaction or savepoint. */
interface TxRunner {
  query<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  exec(sql: string): Promise<void>;
}

/** Wraps a driver's open transaction; nested `transaction()` calls become savepoints. */
export function transactionScope(kind: DbKind, runner: TxRunner, depth = 0): Queryable {
  return {
    kind,
    query: (sql, params) => runner.query(sql, params),
    exec: (sql) => runner.exec(sql),
    async transaction(fn) {
      const savepoint = `llmgw_sp_${depth + 1}`;
      await runner.exec(`savepoint ${savepoint}`);
      try {
        const result = await fn(transactionScope(kind, runner, depth + 1));
        await runner.exec(`release savepoint ${savepoint}`);
        return result;
      } catch (err) {
        await runner.exec(`rollback to savepoint ${savepoint}`);
        throw err;
      }
    },
  };
}

/** Thrown when COMMIT finds the transaction already aborted (a failed statement was swallowed). */
export class TransactionAborted extends Error {
  override readonly name = "TransactionAborted";
  constructor() {
    super("the transaction was aborted by an earlier error and has been rolled back");
  }
}

// LISTEN/NOTIFY channel names go into SQL unquoted (PGlite's listen() does so itself), so only plain
// lower-case identifiers are allowed; that keeps the name identical on both drivers.
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;
export function checkChannel(channel: string): string {
  if (!CHANNEL.test(channel)) throw new Error(`invalid channel name ${JSON.stringify(channel)}`);
  return channel;
}

/**
 * A jsonb parameter. Always pass JSON text and cast with `$n::jsonb`: node-postgres would turn a JS
 * array into a Postgres array literal, and PGlite passes a JS string through unquoted.
 */
export function jsonb(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/** The row of a statement that always returns exactly one (an upsert with RETURNING). */
export function onlyRow<T>(rows: readonly T[], what: string): T {
  const [row] = rows;
  if (row === undefined) throw new Error(`${what} returned no row`);
  return row;
}

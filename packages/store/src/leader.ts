import pg from "pg";
import type { DbKind } from "./db";

/** The session-level advisory lock whose holder runs the scheduler (SPEC §4). */
export const LEADER_LOCK = 0x6c6c_6d10;

export interface LeaderLock {
  /** Whether this process holds the lock as last checked; tries to take it when it does not. */
  check(): Promise<boolean>;
  /** The last answer of `check`, without asking the database. */
  readonly held: boolean;
  /** Gives the lock up (closes its connection). */
  close(): Promise<void>;
}

/**
 * One leader among the processes sharing a database. On PostgreSQL the lock lives on a connection
 * of its own, held for the life of the process: PostgreSQL releases a session lock when its
 * connection ends, so a process that dies (kill -9 included) frees it for another without any
 * timeout of ours. Pooled connections would not do: the lock would go back to the pool with them.
 * PGlite is one process by construction (its data directory is locked): always the leader.
 */
export function leaderLock(options: { kind: DbKind; databaseUrl?: string | null }): LeaderLock {
  if (options.kind === "pglite" || !options.databaseUrl) {
    return { check: async () => true, held: true, close: async () => {} };
  }
  const url = options.databaseUrl;
  let client: pg.Client | null = null;
  let held = false;
  let closed = false;
  let trying: Promise<boolean> | null = null;

  const drop = (gone: pg.Client) => {
    if (client !== gone) return;
    client = null;
    held = false;
    gone.end().catch(() => undefined);
  };

  async function attempt(): Promise<boolean> {
    if (closed) return false;
    if (client === null) {
      // Keepalive and a query timeout: a connection that silently died must not look alive for long.
      const fresh = new pg.Client({ connectionString: url, keepAlive: true, query_timeout: 5_000 });
      // A dropped connection has taken the lock with it: say so at once, connect again next check.
      fresh.on("error", () => drop(fresh));
      fresh.on("end", () => drop(fresh));
      client = fresh;
      try {
        await fresh.connect();
      } catch {
        drop(fresh);
        return false;
      }
    }
    if (held) {
      // Still ours only while the connection is alive: a cheap round trip proves it.
      const current = client;
      try {
        await current.query("select 1");
      } catch {
        drop(current);
      }
      return held;
    }
    const current = client;
    try {
      const rows = await current.query<{ ok: boolean }>("select pg_try_advisory_lock($1) as ok", [
        LEADER_LOCK,
      ]);
      held = client === current && rows.rows[0]?.ok === true;
    } catch {
      drop(current);
    }
    return held;
  }

  return {
    check() {
      trying ??= attempt().finally(() => {
        trying = null;
      });
      return trying;
    },
    get held() {
      return held;
    },
    async close() {
      closed = true;
      held = false;
      const current = client;
      client = null;
      await current?.end().catch(() => undefined);
    },
  };
}

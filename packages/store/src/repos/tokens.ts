import { jsonb, onlyRow, type Queryable } from "../db";
import { TOKENS_CHANNEL, type TokenCache } from "./tokenCache";

/**
 * An access token created through the API. Only its SHA-256 is kept: the secret is shown once, to
 * whoever created it. `role` is text here (the API owns the list of roles and checks it on read;
 * the table's check constraint refuses anything else).
 */
export interface StoredToken {
  name: string;
  role: string;
  sha256: string;
  createdAt: string;
  createdBy: string;
  lastUsedAt: string | null;
  /** An agent token's node, when it was created for one (else bound on its first heartbeat). */
  node: string | null;
  /** A client token's models (catalogue names or aliases); null: every model. */
  models: string[] | null;
  /** A client token's limits; null: none. */
  requestsPerMinute: number | null;
  concurrency: number | null;
  /** A client token's tokens a UTC day (SPEC §12.3); null: no budget. */
  tokensPerDay: number | null;
}

/** What a new token may leave out: the limits and the node default to none. */
export type NewToken = Omit<
  StoredToken,
  "lastUsedAt" | "node" | "models" | "requestsPerMinute" | "concurrency" | "tokensPerDay"
> &
  Partial<Pick<StoredToken, "node" | "models" | "requestsPerMinute" | "concurrency" | "tokensPerDay">>;

export interface Tokens {
  /** By name. */
  list(): Promise<StoredToken[]>;
  get(name: string): Promise<StoredToken | null>;
  /** The token whose secret hashes to `sha256` (lower-case hex). */
  findByHash(sha256: string): Promise<StoredToken | null>;
  /** Whether any token exists: from the first one on, the API asks every request for one. */
  any(): Promise<boolean>;
  /** Null when the name (or, against all odds, the hash) is already taken. */
  insert(token: NewToken): Promise<StoredToken | null>;
  /** Deletes the token and every session signed in with it, in one statement's transaction. */
  remove(name: string): Promise<boolean>;
  /** Records a use, at most moving the time forward. */
  touch(name: string, at: string): Promise<void>;
}

type TokenRow = {
  name: string;
  role: string;
  sha256: string;
  created_at: Date | string;
  created_by: string;
  last_used_at: Date | string | null;
  node: string | null;
  models: unknown;
  requests_per_minute: number | null;
  concurrency: number | null;
  tokens_per_day: string | number | null;
};
const COLUMNS =
  "name, role, sha256, created_at, created_by, last_used_at, node, models, requests_per_minute, concurrency, tokens_per_day";

export const isoOf = (at: Date | string): string => (at instanceof Date ? at : new Date(at)).toISOString();

const toToken = (row: TokenRow): StoredToken => ({
  name: row.name,
  role: row.role,
  sha256: row.sha256,
  createdAt: isoOf(row.created_at),
  createdBy: row.created_by,
  lastUsedAt: row.last_used_at === null ? null : isoOf(row.last_used_at),
  node: row.node,
  models: Array.isArray(row.models) ? row.models.filter((m): m is string => typeof m === "string") : null,
  requestsPerMinute: row.requests_per_minute,
  concurrency: row.concurrency,
  // bigint: PostgreSQL's driver hands it over as text.
  tokensPerDay: row.tokens_per_day === null ? null : Number(row.tokens_per_day),
});

/**
 * `cache` answers `any` and `findByHash` from memory on the store itself; inside a transaction
 * (`cache` null for reads) they query, since the transaction may hold its own uncommitted change.
 * Writes always make every process forget: here at once, elsewhere by NOTIFY after the commit.
 */
export function tokens(
  sql: Queryable,
  cache: { reads: TokenCache<StoredToken> | null; writes: TokenCache<StoredToken> },
): Tokens {
  const changed = async (on: Queryable) => {
    cache.writes.forget();
    await on.query("select pg_notify($1, '')", [TOKENS_CHANNEL]);
  };
  const findByHash = async (sha256: string) => {
    const [row] = await sql.query<TokenRow>(`select ${COLUMNS} from tokens where sha256 = $1`, [sha256]);
    return row === undefined ? null : toToken(row);
  };
  const any = async () => {
    const rows = await sql.query<{ any: boolean }>("select exists (select 1 from tokens) as any");
    return onlyRow(rows, "tokens exist").any;
  };
  return {
    async list() {
      return (await sql.query<TokenRow>(`select ${COLUMNS} from tokens order by name`)).map(toToken);
    },

    async get(name) {
      const [row] = await sql.query<TokenRow>(`select ${COLUMNS} from tokens where name = $1`, [name]);
      return row === undefined ? null : toToken(row);
    },

    findByHash: (sha256) =>
      cache.reads ? cache.reads.byHash(sha256, () => findByHash(sha256)) : findByHash(sha256),

    any: () => (cache.reads ? cache.reads.any(any) : any()),

    async insert(token) {
      const [row] = await sql.query<TokenRow>(
        `insert into tokens (name, role, sha256, created_at, created_by, node, models, requests_per_minute, concurrency, tokens_per_day)
         values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10)
         on conflict do nothing
         returning ${COLUMNS}`,
        [
          token.name,
          token.role,
          token.sha256,
          token.createdAt,
          token.createdBy,
          token.node ?? null,
          // SQL null, not JSON null: no list is every model.
          token.models == null ? null : jsonb(token.models),
          token.requestsPerMinute ?? null,
          token.concurrency ?? null,
          token.tokensPerDay ?? null,
        ],
      );
      if (row !== undefined) await changed(sql);
      return row === undefined ? null : toToken(row);
    },

    remove: (name) =>
      sql.transaction(async (tx) => {
        await tx.query("delete from sessions where token = $1", [name]);
        const rows = await tx.query<{ name: string }>("delete from tokens where name = $1 returning name", [
          name,
        ]);
        if (rows.length > 0) await changed(tx);
        return rows.length > 0;
      }),

    async touch(name, at) {
      await sql.query(
        `update tokens set last_used_at = $2
         where name = $1 and (last_used_at is null or last_used_at < $2)`,
        [name, at],
      );
    },
  };
}

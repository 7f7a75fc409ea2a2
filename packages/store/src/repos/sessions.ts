import { onlyRow, type Queryable } from "../db";
import { isoOf } from "./tokens";

/** A browser's sign-in: the SHA-256 of the cookie's random id, and the token it was made with. */
export interface StoredSession {
  idSha256: string;
  /** The token's name, from the configuration file or the tokens table. */
  token: string;
  /** The token's hash at sign-in: a token replaced under the same name does not inherit the session. */
  tokenSha256: string;
  createdAt: string;
  lastSeenAt: string;
}

export interface Sessions {
  /** Oldest first (tests and diagnostics). */
  list(): Promise<StoredSession[]>;
  get(idSha256: string): Promise<StoredSession | null>;
  insert(session: StoredSession): Promise<StoredSession>;
  /** Moves lastSeenAt forward (an idle timeout slides with use). */
  touch(idSha256: string, at: string): Promise<void>;
  remove(idSha256: string): Promise<boolean>;
  /** Every session of one token (its revocation, or a sign-out everywhere). */
  removeForToken(token: string): Promise<number>;
  /** Sessions idle since before `idleBefore` or created before `createdBefore`: expired ones. */
  removeExpired(idleBefore: string, createdBefore: string): Promise<number>;
}

type SessionRow = {
  id_sha256: string;
  token: string;
  token_sha256: string;
  created_at: Date | string;
  last_seen_at: Date | string;
};
const COLUMNS = "id_sha256, token, token_sha256, created_at, last_seen_at";
const toSession = (row: SessionRow): StoredSession => ({
  idSha256: row.id_sha256,
  token: row.token,
  tokenSha256: row.token_sha256,
  createdAt: isoOf(row.created_at),
  lastSeenAt: isoOf(row.last_seen_at),
});

export function sessions(sql: Queryable): Sessions {
  return {
    async list() {
      const rows = await sql.query<SessionRow>(
        `select ${COLUMNS} from sessions order by created_at, id_sha256`,
      );
      return rows.map(toSession);
    },

    async get(idSha256) {
      const [row] = await sql.query<SessionRow>(`select ${COLUMNS} from sessions where id_sha256 = $1`, [
        idSha256,
      ]);
      return row === undefined ? null : toSession(row);
    },

    async insert(s) {
      const rows = await sql.query<SessionRow>(
        `insert into sessions (${COLUMNS}) values ($1, $2, $3, $4, $5) returning ${COLUMNS}`,
        [s.idSha256, s.token, s.tokenSha256, s.createdAt, s.lastSeenAt],
      );
      return toSession(onlyRow(rows, "insert of a session"));
    },

    async touch(idSha256, at) {
      await sql.query("update sessions set last_seen_at = $2 where id_sha256 = $1 and last_seen_at < $2", [
        idSha256,
        at,
      ]);
    },

    async remove(idSha256) {
      const rows = await sql.query("delete from sessions where id_sha256 = $1 returning 1", [idSha256]);
      return rows.length > 0;
    },

    async removeForToken(token) {
      return (await sql.query("delete from sessions where token = $1 returning 1", [token])).length;
    },

    async removeExpired(idleBefore, createdBefore) {
      const rows = await sql.query(
        "delete from sessions where last_seen_at < $1 or created_at < $2 returning 1",
        [idleBefore, createdBefore],
      );
      return rows.length;
    },
  };
}

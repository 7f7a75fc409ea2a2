import { type AuditEntry, auditEntrySchema } from "@llmgw/domain";
import { jsonb, type Queryable } from "../db";

export type NewAuditEntry = Omit<AuditEntry, "id">;

export interface Audit {
  /** Appends in the given order (ids ascending) and returns the stored entries. */
  append(entries: readonly NewAuditEntry[]): Promise<AuditEntry[]>;
  /** Newest first; `model` keeps the entries whose target is that model's name. Default limit 100. */
  list(filter?: { model?: string; limit?: number }): Promise<AuditEntry[]>;
}

type AuditRow = Omit<AuditEntry, "at"> & { at: Date | string; version: number | null };
// `version`: the model version an entry produced, so a 412 can list what changed since the
// caller's version. Stored when the entry carries one; handed back only when set, and only once
// the domain's auditEntrySchema has the field (the parse drops keys it does not know).
const COLUMNS = "id, at, by, action, target, field, before, after, version";
const toEntry = ({ version, at, ...row }: AuditRow): AuditEntry =>
  auditEntrySchema.parse({
    ...row,
    at: at instanceof Date ? at.toISOString() : at,
    ...(version === null ? {} : { version }),
  });

export function audit(sql: Queryable): Audit {
  return {
    async append(entries) {
      if (entries.length === 0) return [];
      // `with ordinality … order by n` hands the rows to the id sequence in the caller's order.
      const rows = await sql.query<AuditRow>(
        `insert into audit (at, by, action, target, field, before, after, version)
         select (e->>'at')::timestamptz, e->>'by', e->>'action', e->>'target', e->>'field',
                e->'before', e->'after', (e->>'version')::int
         from jsonb_array_elements($1::jsonb) with ordinality as x (e, n)
         order by n
         returning ${COLUMNS}`,
        [jsonb(entries)],
      );
      return rows.map(toEntry).sort((a, b) => a.id - b.id);
    },

    async list({ model, limit = 100 } = {}) {
      const rows = await sql.query<AuditRow>(
        `select ${COLUMNS} from audit where ($1::text is null or target = $1)
         order by id desc limit $2`,
        [model ?? null, limit],
      );
      return rows.map(toEntry);
    },
  };
}

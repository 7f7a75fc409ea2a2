import { jsonb, type Queryable } from "../db";

/** What the leader's window holds for one model (SPEC §9.3). */
export interface StoredScale {
  model: string;
  wanted: number;
  /** When wanted may next fall (ms since the epoch); null while nothing is held. */
  holdUntil: number | null;
}

/**
 * The wanted replicas of autoscaled models, as the scheduler's leader last changed them: every
 * process reads them (to show, and to resume the window when it becomes the leader).
 */
export interface Autoscale {
  /** The rows written after `seq` (0: all of them), and the highest seq among them. */
  since(seq: number): Promise<{ rows: StoredScale[]; seq: number }>;
  /** Writes these rows in one statement, each with a new seq. */
  put(rows: readonly StoredScale[]): Promise<void>;
}

type Row = { model: string; wanted: number; hold_until: Date | string | null; seq: number };

export function autoscale(sql: Queryable): Autoscale {
  return {
    async since(seq) {
      const rows = await sql.query<Row>(
        "select model, wanted, hold_until, seq from autoscale where seq > $1 order by seq",
        [seq],
      );
      return {
        rows: rows.map((r) => ({
          model: r.model,
          wanted: r.wanted,
          holdUntil: r.hold_until === null ? null : new Date(r.hold_until).getTime(),
        })),
        seq: rows.reduce((high, r) => Math.max(high, Number(r.seq)), seq),
      };
    },

    async put(rows) {
      if (rows.length === 0) return;
      const items = rows.map((r) => ({
        model: r.model,
        wanted: r.wanted,
        holdUntil: r.holdUntil === null ? null : new Date(r.holdUntil).toISOString(),
      }));
      await sql.query(
        `insert into autoscale (model, wanted, hold_until, seq)
         select x->>'model', (x->>'wanted')::int, (x->>'holdUntil')::timestamptz, nextval('autoscale_seq')
         from jsonb_array_elements($1::jsonb) with ordinality as t (x, n)
         order by n
         on conflict (model) do update
           set wanted = excluded.wanted, hold_until = excluded.hold_until, seq = excluded.seq`,
        [jsonb(items)],
      );
    },
  };
}

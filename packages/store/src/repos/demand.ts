import type { DemandRecord } from "@llmgw/domain";
import { jsonb, type Queryable } from "../db";

/**
 * Each `llmgw serve` process's demand (SPEC §9.1): one row a process, replaced in one statement,
 * so recording costs one write a second whatever the number of models.
 */
export interface Demand {
  /**
   * Stores `process`'s demand now. `forgetBefore` (ms since the epoch): also deletes rows that
   * old, left by processes that ended without saying so; in the same statement.
   */
  record(process: string, record: DemandRecord, forgetBefore?: number): Promise<void>;
  /** Every process's row recorded after `since` (ms since the epoch), `process` named. */
  since(since: number): Promise<(DemandRecord & { process: string })[]>;
  /** Deletes `process`'s row (a process shutting down counts 0 at once). */
  forget(process: string): Promise<void>;
}

type Row = {
  process: string;
  at: Date | string;
  models: Record<string, number>;
  replicas: Record<string, number>;
  revisions: Record<string, { sent: number; failed: number }> | null;
};

const UPSERT = `
  insert into demand (process, at, models, replicas, revisions) values ($1, $2, $3::jsonb, $4::jsonb, $5::jsonb)
  on conflict (process) do update
    set at = excluded.at, models = excluded.models, replicas = excluded.replicas,
        revisions = excluded.revisions`;

export function demand(sql: Queryable): Demand {
  return {
    async record(process, record, forgetBefore) {
      const values = [
        process,
        new Date(record.at).toISOString(),
        jsonb(record.models),
        jsonb(record.replicas),
        jsonb(record.revisions ?? {}),
      ];
      if (forgetBefore === undefined) {
        await sql.query(UPSERT, values);
        return;
      }
      await sql.query(`with gone as (delete from demand where at < $6 and process <> $1) ${UPSERT}`, [
        ...values,
        new Date(forgetBefore).toISOString(),
      ]);
    },

    async since(since) {
      const rows = await sql.query<Row>(
        "select process, at, models, replicas, revisions from demand where at > $1",
        [new Date(since).toISOString()],
      );
      return rows.map((r) => ({
        process: r.process,
        at: new Date(r.at).getTime(),
        models: r.models,
        replicas: r.replicas,
        ...(r.revisions && Object.keys(r.revisions).length > 0 ? { revisions: r.revisions } : {}),
      }));
    },

    async forget(process) {
      await sql.query("delete from demand where process = $1", [process]);
    },
  };
}

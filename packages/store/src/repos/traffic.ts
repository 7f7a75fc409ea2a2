import type { ModelTraffic } from "@llmgw/domain";
import { jsonb, type Queryable } from "../db";

/** One process's figures for one model in one second (Unix seconds), as it sent them. */
export type StoredTrafficSecond = { process: string; at: number; traffic: ModelTraffic };

/**
 * Each `llmgw serve` process's last minutes of `model.traffic` (SPEC §7.7), for a page to draw
 * the traffic of every process sharing the database, summed. One row per process, model and
 * second; a process writes its tick in one statement, which also drops what is older than the
 * window, so the table holds the last minutes of whichever processes had traffic.
 */
export interface TrafficSeconds {
  /** Stores `process`'s tick at second `at`, and deletes every row before `forgetBefore`. */
  record(process: string, at: number, traffic: readonly ModelTraffic[], forgetBefore: number): Promise<void>;
  /** The model's rows from second `from` on, every process's, oldest first. */
  of(model: string, from: number): Promise<StoredTrafficSecond[]>;
  /** The models any process but `process` had traffic for from second `from` on, each once. */
  othersModels(process: string, from: number): Promise<string[]>;
}

type Row = { process: string; at: string | number; figures: Omit<ModelTraffic, "model"> };

export function traffic(sql: Queryable): TrafficSeconds {
  return {
    async record(process, at, ticks, forgetBefore) {
      if (ticks.length === 0) return;
      await sql.query(
        `with gone as (delete from traffic where at < $3)
         insert into traffic (process, model, at, figures)
         select $1, x->>'model', $2, x - 'model' from jsonb_array_elements($4::jsonb) as t (x)
         on conflict (model, at, process) do update set figures = excluded.figures`,
        [process, at, forgetBefore, jsonb(ticks)],
      );
    },

    async of(model, from) {
      const rows = await sql.query<Row>(
        "select process, at, figures from traffic where model = $1 and at >= $2 order by at, process",
        [model, from],
      );
      return rows.map((r) => ({ process: r.process, at: Number(r.at), traffic: { ...r.figures, model } }));
    },

    async othersModels(process, from) {
      const rows = await sql.query<{ model: string }>(
        "select distinct model from traffic where at >= $2 and process <> $1",
        [process, from],
      );
      return rows.map((r) => r.model);
    },
  };
}

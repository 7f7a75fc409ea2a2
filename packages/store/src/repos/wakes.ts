import type { Queryable } from "../db";

/** A wake NOTIFYs this channel with the model's name: the process that schedules runs at once. */
export const WAKES_CHANNEL = "llmgw_wakes";

/**
 * On-demand wakes (SPEC §2.6): a woken model wants one replica until idle for its timeout. Kept in
 * the store rather than one process's memory, so a wake through any process sharing PostgreSQL
 * reaches the one that schedules, and survives a change of leader.
 */
export interface Wakes {
  /** Each woken model with when it was last woken (epoch milliseconds). */
  list(): Promise<Map<string, number>>;
  /** Records a wake; an earlier time never replaces a later one. Notifies WAKES_CHANNEL. */
  wake(model: string, at: number): Promise<void>;
  /** Forgets a model's wake, unless it was woken again after `upTo` (epoch ms). */
  forget(model: string, upTo: number): Promise<void>;
}

type WakeRow = { model: string; woken_at: Date | string };

export function wakes(sql: Queryable): Wakes {
  return {
    async list() {
      const rows = await sql.query<WakeRow>("select model, woken_at from wakes");
      return new Map(rows.map((r) => [r.model, new Date(r.woken_at).getTime()]));
    },

    wake: (model, at) =>
      sql.transaction(async (tx) => {
        await tx.query(
          `insert into wakes (model, woken_at) values ($1, $2)
           on conflict (model) do update set woken_at = greatest(wakes.woken_at, excluded.woken_at)`,
          [model, new Date(at).toISOString()],
        );
        await tx.query("select pg_notify($1, $2)", [WAKES_CHANNEL, model]);
      }),

    async forget(model, upTo) {
      await sql.query("delete from wakes where model = $1 and woken_at <= $2", [
        model,
        new Date(upTo).toISOString(),
      ]);
    },
  };
}

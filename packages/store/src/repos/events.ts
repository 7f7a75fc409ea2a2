import { type ChangeEvent, type ChangeEventType, changeEventTypeSchema, type EventData } from "@llmgw/domain";
import { jsonb, onlyRow, type Queryable } from "../db";
import { LOCK } from "../migrations";

/** Every append NOTIFYs this channel with the new id, so other processes on one PostgreSQL catch up. */
export const EVENTS_CHANNEL = "llmgw_events";

/** An event as the log holds it: one of the domain's change events, with its id. */
export type StoredEvent = ChangeEvent & {
  id: number;
  /** Which process appended it (its `origin` argument), when it said. */
  origin?: string | null;
};

export interface Events {
  /**
   * Appends one event and returns its id. Ids increase in commit order, so a reader resuming from
   * the last id it saw never skips one. Call it last in a transaction: on PostgreSQL it holds a lock
   * until commit (see below), and row locks taken after it can deadlock with another writer.
   */
  append<T extends ChangeEventType>(type: T, data: EventData<T>): Promise<number>;
  /**
   * Appends several events, in order, in one statement; returns their ids (ascending, one per
   * event). A change announcing fifty replicas holds the lock for one round trip, not fifty.
   */
  appendAll(events: readonly ChangeEvent[], origin?: string): Promise<number[]>;
  /** Events with an id above `id`, oldest first. */
  since(id: number, limit?: number): Promise<StoredEvent[]>;
  /** 0 when there are none. */
  latestId(): Promise<number>;
  /** Deletes all but the newest `keepLast` events; returns how many went. */
  prune(keepLast: number): Promise<number>;
}

type EventRow = { id: number; type: string; data: unknown; origin: string | null };

/**
 * The one place the log's payloads are trusted, not parsed: only `appendAll`, typed by the
 * domain's union, writes the table, so a row's data is what its type says. Parsing every row
 * would cost a replay (a page of 1,000 per reconnecting stream, thousands of streams after a
 * restart) far more than the read, and Zod's output (stripped keys, defaults) could differ from
 * the stored bytes the streams must resend unchanged. The type itself is still checked.
 */
function logged(row: EventRow): ChangeEvent {
  return { type: changeEventTypeSchema.parse(row.type), data: row.data } as ChangeEvent;
}

export function events(sql: Queryable): Events {
  const appendAll: Events["appendAll"] = (events, origin) =>
    sql.transaction(async (tx) => {
      if (events.length === 0) return [];
      // A sequence hands out ids at insert, not at commit: without this lock a transaction holding
      // id 7 could commit after one holding id 8, and a reader already past 8 would never see 7.
      // The lock lasts until the whole transaction commits, so event ids become visible in order.
      await tx.query("select pg_advisory_xact_lock($1)", [LOCK.events]);
      // `with ordinality … order by n` hands the rows to the id sequence in the caller's order;
      // the NOTIFY goes in the same statement: one round trip while the lock is held.
      const [row] = await tx.query<{ ids: number[] | null }>(
        `with added as (
           insert into events (type, data, origin)
           select e->>'type', e->'data', $3::text
           from jsonb_array_elements($1::jsonb) with ordinality as x (e, n)
           order by n
           returning id
         )
         select json_agg(id order by id) as ids, pg_notify($2, max(id)::text) as notified from added`,
        [
          jsonb(events.map(({ type, data }) => ({ type, data: data ?? null }))),
          EVENTS_CHANNEL,
          origin ?? null,
        ],
      );
      const ids = (row?.ids ?? []).map(Number);
      if (ids.length !== events.length) throw new Error("an event append lost a row");
      return ids;
    });
  return {
    async append(type, data) {
      const [id] = await appendAll([{ type, data } as ChangeEvent]);
      if (id === undefined) throw new Error("an event append returned no id");
      return id;
    },

    appendAll,

    async since(id, limit = 1000) {
      const rows = await sql.query<EventRow>(
        "select id, type, data, origin from events where id > $1 order by id limit $2",
        [id, limit],
      );
      return rows.map((row) => ({
        id: row.id,
        ...logged(row),
        ...(row.origin === null ? {} : { origin: row.origin }),
      }));
    },

    async latestId() {
      const rows = await sql.query<{ id: number }>("select coalesce(max(id), 0) as id from events");
      return onlyRow(rows, "latest event id").id;
    },

    async prune(keepLast) {
      const rows = await sql.query<{ n: number }>(
        `with gone as (
           delete from events where id <= (select max(id) from events) - $1 returning 1
         ) select count(*) as n from gone`,
        [Math.max(0, keepLast)],
      );
      return onlyRow(rows, "prune of events").n;
    },
  };
}

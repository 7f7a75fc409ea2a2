import {
  DAY_MS,
  dayOf,
  type ReplicaHoursRow,
  type ReplicaSum,
  USAGE_KEPT_DAYS,
  type UsageKey,
  type UsageRow,
  type UsageStep,
  type UsageSum,
} from "@llmgw/domain";
import { jsonb, type Queryable } from "../db";
import type { SettledDays } from "./settledDays";

/**
 * Usage counted by hour, model, client token and owner (SPEC §12.1). Each process adds what it
 * counted since its last write; rows are summed here, so processes never overwrite each other.
 */
export interface Usage {
  /** Adds each row's counts to the stored hour's (creating it), in one statement. */
  add(rows: readonly UsageRow[]): Promise<void>;
  /** Rows whose hour is in [from, to) (ms since the epoch), oldest first. */
  between(from: number, to: number): Promise<UsageRow[]>;
  /**
   * The hours in [from, to) summed by step (UTC hours or days) and by the key `by`, in the
   * database: a reading of 90 days carries one row per day and key, not every stored hour.
   * Ordered by step, then key in byte order (one row per step and key).
   *
   * `settledBefore` (ms since the epoch): whole days that ended by then no longer change, so by
   * day their sums are kept in this process once read (SettledDays) and not read again; a day
   * still open, older than the counts are kept, or cut by `from` or `to` is always read.
   */
  sums(from: number, to: number, by: UsageKey, step: UsageStep, settledBefore?: number): Promise<UsageSum[]>;
  /** Replica figures in [from, to) summed by step and by model or owner, ordered as `sums`. */
  replicaSums(from: number, to: number, by: "model" | "owner", step: UsageStep): Promise<ReplicaSum[]>;
  /** Deletes the hours (counts and replica figures) before `before` (ms since the epoch); returns how many rows went. */
  prune(before: number): Promise<number>;
  /** Adds each row's replica figures to the stored hour's (SPEC §12.1), in one statement. */
  addReplicaHours(rows: readonly ReplicaHoursRow[]): Promise<void>;
  /** Replica figures whose hour is in [from, to), oldest first. */
  replicaHoursBetween(from: number, to: number): Promise<ReplicaHoursRow[]>;
  /**
   * Moves the instant up to which replica time is counted to `now` and returns where it was (null
   * the first time): the span between is the caller's to count, in the same transaction. The row
   * stays locked until that transaction ends, so a second caller waits and then gets `now`.
   */
  moveReplicaClock(now: number): Promise<number | null>;
}

/** The six counts as their columns come back (bigint sums may come as text). */
type CountColumns = {
  requests: string | number;
  refused: string | number;
  failed: string | number;
  prompt_tokens: string | number;
  cached_tokens: string | number;
  completion_tokens: string | number;
};

type Row = CountColumns & { hour: Date | string; model: string; token: string; owner: string };

const countsOf = (r: CountColumns) => ({
  requests: Number(r.requests),
  refused: Number(r.refused),
  failed: Number(r.failed),
  promptTokens: Number(r.prompt_tokens),
  cachedTokens: Number(r.cached_tokens),
  completionTokens: Number(r.completion_tokens),
});

/** The six counts' columns, as usage_hours and usage_days hold them. */
const COUNT_COLUMNS = [
  "requests",
  "refused",
  "failed",
  "prompt_tokens",
  "cached_tokens",
  "completion_tokens",
];
/** The replica figures' columns, as usage_replica_hours holds them. */
const REPLICA_COLUMNS = ["replica_hours", "memory_gb_hours", "core_hours", "gpu_hours"];

/** `column = t.column + excluded.column` for each of `columns`: an upsert that adds. */
const addingTo = (table: string, columns: readonly string[] = COUNT_COLUMNS) =>
  columns.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(", ");

// One parameter whatever the number of rows: the rows go as one JSON array, so a process with
// thousands of keys in a second still writes one statement (and no parameter limit applies). The
// same statement adds them to their UTC day's row (usage_days), summed first: a statement may
// not update one row twice, and a batch may hold several hours of one day. Rows are taken in key
// order, so processes writing the same keys at once lock them in one order (no deadlock).
const ADD = `
  with r as (
    select * from jsonb_to_recordset($1::jsonb) as r(
      hour timestamptz, model text, token text, owner text, requests bigint, refused bigint,
      failed bigint, "promptTokens" bigint, "cachedTokens" bigint, "completionTokens" bigint)
  ), hours as (
    insert into usage_hours as u
      (hour, model, token, owner, requests, refused, failed, prompt_tokens, cached_tokens, completion_tokens)
    select r.hour, r.model, r.token, r.owner, r.requests, r.refused, r.failed,
           r."promptTokens", r."cachedTokens", r."completionTokens"
    from r order by 1, 2, 3, 4
    on conflict (hour, model, token, owner) do update set ${addingTo("u")}
  )
  insert into usage_days as d
    (day, model, token, owner, requests, refused, failed, prompt_tokens, cached_tokens, completion_tokens)
  select date_trunc('day', r.hour, 'UTC'), r.model, r.token, r.owner, sum(r.requests), sum(r.refused),
         sum(r.failed), sum(r."promptTokens"), sum(r."cachedTokens"), sum(r."completionTokens")
  from r group by 1, 2, 3, 4 order by 1, 2, 3, 4
  on conflict (day, model, token, owner) do update set ${addingTo("d")}`;

const ADD_REPLICA_HOURS = `
  insert into usage_replica_hours as u (hour, model, owner, replica_hours, memory_gb_hours, core_hours, gpu_hours)
  select r.hour, r.model, r.owner, r."replicaHours", r."memoryGBHours", r."coreHours", r."gpuHours"
  from jsonb_to_recordset($1::jsonb) as r(
    hour timestamptz, model text, owner text, "replicaHours" float8, "memoryGBHours" float8,
    "coreHours" float8, "gpuHours" float8)
  on conflict (hour, model, owner) do update set ${addingTo("u", REPLICA_COLUMNS)}`;

type ReplicaRow = {
  hour: Date | string;
  model: string;
  owner: string;
  replica_hours: number;
  memory_gb_hours: number;
  core_hours: number;
  gpu_hours: number;
};

// The key's column: from this fixed table only, never from the caller's text.
const KEY_COLUMN: Record<UsageKey, string> = { model: "model", token: "token", owner: "owner" };
// Days are UTC days whatever the session's time zone (date_trunc's third argument).
const stepStart = (step: UsageStep) => (step === "day" ? "date_trunc('day', hour, 'UTC')" : "hour");

/**
 * A query of sums: its text, and the columns it sums. `adjacent`: its rows come in order but not
 * summed, each step and key's rows one after another; sumsOf adds them up.
 */
type Summed = { text: string; columns: readonly string[]; adjacent?: boolean };
/** One sum as `sumsOf` hands it over: the step's start (ms since the epoch), the key, the sums. */
type Tuple = [number, string, ...number[]];

const usageSum = ([
  at,
  key,
  requests,
  refused,
  failed,
  promptTokens,
  cachedTokens,
  completionTokens,
]: Tuple): UsageSum => ({
  at,
  key,
  requests: requests ?? 0,
  refused: refused ?? 0,
  failed: failed ?? 0,
  promptTokens: promptTokens ?? 0,
  cachedTokens: cachedTokens ?? 0,
  completionTokens: completionTokens ?? 0,
});

/**
 * The rows of `table` whose `column` is in [$1, $2), their `columns` summed by `at` (an
 * expression of the row: the step's start) and the key, ordered by both (keys in byte order,
 * collate "C"); `at` as ms since the epoch.
 *
 * `many`: the key has thousands of values (client tokens), so there are as many groups as rows or
 * nearly. The rows then reach the sums already in order (the inner subquery, fenced by `offset 0`,
 * sorted) and each group is summed as its rows go by (whole days by token are not summed here at
 * all: dayRows). Left to itself the
 * planner guesses far fewer (day, token) groups than there are and hashes them, spilling past
 * work_mem: 90 days of 2,000 tokens took 100–160 ms that way, 20–30 ms in order. Models and
 * owners are tens: hashing their few groups beats sorting every row.
 */
const summed = (
  table: string,
  column: string,
  at: string,
  key: string,
  columns: readonly string[],
  many: boolean,
): Summed => ({
  columns,
  text: `
    select (extract(epoch from s.at) * 1000)::int8 as at, s.key, ${columns.map((c) => `sum(${c}) as ${c}`).join(", ")}
    from (
      select ${at} as at, ${key} collate "C" as key, ${columns.join(", ")}
      from ${table} where ${column} >= $1 and ${column} < $2
      ${many ? "order by 1, 2 offset 0" : ""}
    ) s group by s.at, s.key order by s.at, s.key`,
});

/**
 * The day rows of [$1, $2) by a key with thousands of values (client tokens), in the order of
 * usage_days_token and not summed: a token's day has a row per model and owner it used, few, so
 * adding them as they go by (sumsOf) costs less than summing every group in the database (numeric
 * sums): 90 days of 2,000 tokens, 18,000 groups, took 30–52 ms so on PostgreSQL, 48–97 summed.
 */
const dayRows = (key: string): Summed => ({
  columns: COUNT_COLUMNS,
  adjacent: true,
  text: `
    select (extract(epoch from day) * 1000)::int8 as at, ${key} collate "C" as key, ${COUNT_COLUMNS.join(", ")}
    from usage_days where day >= $1 and day < $2 order by day, ${key} collate "C" offset 0`,
});

/** Adds up each run of tuples of one step and key (in place); the sums in order. */
function addedUp(tuples: Tuple[]): Tuple[] {
  const sums: Tuple[] = [];
  let last: Tuple | undefined;
  for (const tuple of tuples) {
    if (last !== undefined && last[0] === tuple[0] && last[1] === tuple[1])
      for (let k = 2; k < tuple.length; k++) last[k] = (last[k] as number) + (tuple[k] as number);
    else {
      sums.push(tuple);
      last = tuple;
    }
  }
  return sums;
}

/**
 * The sums of [from, to), in their order, handed over as one JSON array built in the database
 * (its order is the sorted subquery's; readingOf checks it). As rows, each field is parsed apart
 * by the driver: 90 days of 2,000 tokens (18,000 sums of 8 fields) took 300 ms that way on
 * PGlite, 90 ms as JSON; over HTTP on PostgreSQL, the reading took 275–287 ms median and 160–167
 * ms of the server's CPU as rows, 168–201 ms and 66–70 ms as JSON. The array's text is joined
 * from each sum's (string_agg), not built as json values (json_agg of json_build_array, whose
 * per-value type lookups were most of the query): 72 against 82 ms on PostgreSQL, 121 against 138
 * on PGlite, the same text once parsed. Keys go through to_json, so any name is quoted right.
 */
async function sumsOf(
  sql: Queryable,
  { text, columns, adjacent = false }: Summed,
  from: number,
  to: number,
): Promise<Tuple[]> {
  const [read] = await sql.query<{ sums: string }>(
    `select '[' || coalesce(string_agg('[' || at || ',' || to_json(key)::text || ${columns.map((c) => `',' || ${c}`).join(" || ")} || ']', ','), '') || ']' as sums
     from (${text}) g`,
    [new Date(from).toISOString(), new Date(to).toISOString()],
  );
  const tuples = JSON.parse(read?.sums ?? "[]") as Tuple[];
  return adjacent ? addedUp(tuples) : tuples;
}

/** `settled`: the process's kept days (SettledDays); none inside a transaction. */
export function usage(sql: Queryable, settled: SettledDays | null = null): Usage {
  return {
    async add(rows) {
      if (rows.length === 0) return;
      await sql.query(ADD, [jsonb(rows.map((r) => ({ ...r, hour: new Date(r.hour).toISOString() })))]);
    },

    async between(from, to) {
      const rows = await sql.query<Row>(
        `select hour, model, token, owner, requests, refused, failed, prompt_tokens, cached_tokens,
                completion_tokens
         from usage_hours where hour >= $1 and hour < $2 order by hour, model, token, owner`,
        [new Date(from).toISOString(), new Date(to).toISOString()],
      );
      return rows.map((r) => ({
        hour: new Date(r.hour).getTime(),
        model: r.model,
        token: r.token,
        owner: r.owner,
        ...countsOf(r),
      }));
    },

    async sums(from, to, by, step, settledBefore) {
      const key = KEY_COLUMN[by];
      const many = by === "token";
      const hours = summed("usage_hours", "hour", stepStart(step), key, COUNT_COLUMNS, many);
      const read = async (query: Summed, lo: number, hi: number) =>
        lo < hi ? (await sumsOf(sql, query, lo, hi)).map(usageSum) : [];
      // By day: the whole days inside [from, to) from their day rows; the hours of a day cut by
      // either end from usage_hours, so the sums are exactly those of the hours. Each part is a
      // range of its own (one scan of 90 days of hours to find none cost 200 ms), and the parts
      // follow each other in time, so their rows come back in order.
      const first = Math.ceil(from / DAY_MS) * DAY_MS;
      const last = dayOf(to);
      if (step !== "day" || first >= last) return read(hours, from, to);
      const days = many ? dayRows(key) : summed("usage_days", "day", "day", key, COUNT_COLUMNS, false);
      // The settled days [lo, hi): kept ones from memory, each run of others in one read, kept.
      const kept = settledBefore === undefined ? null : settled;
      const oldest = kept ? dayOf((settledBefore as number) - (USAGE_KEPT_DAYS - 1) * DAY_MS) : last;
      const lo = Math.min(Math.max(first, oldest), last);
      const hi = kept ? Math.max(lo, Math.min(last, dayOf(settledBefore as number))) : lo;
      const parts: Promise<readonly UsageSum[]>[] = [read(hours, from, first), read(days, first, lo)];
      for (let day = lo; day < hi; ) {
        const held = kept?.get(by, day);
        if (held) {
          parts.push(Promise.resolve(held));
          day += DAY_MS;
          continue;
        }
        let end = day + DAY_MS;
        while (end < hi && kept?.get(by, end) === undefined) end += DAY_MS;
        const [runFrom, epoch] = [day, kept?.epoch ?? 0];
        parts.push(
          read(days, runFrom, end).then((sums) => {
            kept?.keep(by, runFrom, end, sums, epoch);
            return sums;
          }),
        );
        day = end;
      }
      parts.push(read(days, hi, last), read(hours, last, to));
      return (await Promise.all(parts)).flat();
    },

    async replicaSums(from, to, by, step) {
      const query = summed(
        "usage_replica_hours",
        "hour",
        stepStart(step),
        KEY_COLUMN[by],
        REPLICA_COLUMNS,
        false,
      );
      return (await sumsOf(sql, query, from, to)).map(
        ([at, key, replicaHours, memoryGBHours, coreHours, gpuHours]) => ({
          at,
          key,
          replicaHours: replicaHours ?? 0,
          memoryGBHours: memoryGBHours ?? 0,
          coreHours: coreHours ?? 0,
          gpuHours: gpuHours ?? 0,
        }),
      );
    },

    async prune(before) {
      const gone = await sql.query<{ n: string | number }>(
        `with counts as (delete from usage_hours where hour < $1 returning 1),
              replicas as (delete from usage_replica_hours where hour < $1 returning 1),
              -- A day goes once all of it is before the cut: it ends at the cut or before.
              days as (delete from usage_days where day <= $1::timestamptz - interval '1 day' returning 1)
         select (select count(*) from counts) + (select count(*) from replicas) + (select count(*) from days) as n`,
        [new Date(before).toISOString()],
      );
      return Number(gone[0]?.n ?? 0);
    },

    async addReplicaHours(rows) {
      if (rows.length === 0) return;
      await sql.query(ADD_REPLICA_HOURS, [
        jsonb(rows.map((r) => ({ ...r, hour: new Date(r.hour).toISOString() }))),
      ]);
    },

    async replicaHoursBetween(from, to) {
      const rows = await sql.query<ReplicaRow>(
        `select hour, model, owner, replica_hours, memory_gb_hours, core_hours, gpu_hours
         from usage_replica_hours where hour >= $1 and hour < $2 order by hour, model, owner`,
        [new Date(from).toISOString(), new Date(to).toISOString()],
      );
      return rows.map((r) => ({
        hour: new Date(r.hour).getTime(),
        model: r.model,
        owner: r.owner,
        replicaHours: Number(r.replica_hours),
        memoryGBHours: Number(r.memory_gb_hours),
        coreHours: Number(r.core_hours),
        gpuHours: Number(r.gpu_hours),
      }));
    },

    async moveReplicaClock(now) {
      const held = await sql.query<{ counted_at: Date | string }>(
        "select counted_at from usage_replica_clock where id = 1 for update",
      );
      const at = new Date(now).toISOString();
      await sql.query(
        `insert into usage_replica_clock (id, counted_at) values (1, $1)
         on conflict (id) do update set counted_at = greatest(usage_replica_clock.counted_at, excluded.counted_at)`,
        [at],
      );
      const was = held[0]?.counted_at;
      return was === undefined ? null : new Date(was).getTime();
    },
  };
}

import { jsonb, type Queryable } from "../db";

/** A day's row of one token's budget: what the engines reported, and what live leases hold. */
export type BudgetDay = { used: number; leased: number };

/** What a process gives back of one token's day: tokens reported, and lease it no longer holds. */
export type BudgetReturn = { token: string; day: string; used: number; released: number };

/** A token's day whose lease a process held and lost: not touched for `expiresMs`, it went back. */
export type ForfeitedLease = { token: string; day: string };

/**
 * Client tokens' budgets by UTC day (SPEC §12.3), shared by every process on the database. A
 * process takes a lease before it admits requests against it, and later turns what its requests
 * used into `used` and gives back what it does not need. Each process's lease is a row of its own
 * (budget_leases), touched every time the process gives or syncs; one not touched for `expiresMs`
 * counts no more: a process killed gives its lease back by going silent.
 */
export interface Budgets {
  /**
   * Leases `want(room)` tokens of `token`'s `day` (`YYYY-MM-DD`) to `process`, at least `need`,
   * while `used` + the live leases stay within `budget` (`room` is what they leave): with the
   * day's row locked, so processes taking leases at once queue here and never give out more than
   * the budget between them. Answers the lease granted (0 when `need` did not fit), the row as it
   * is afterwards, and whether the process's own lease had expired (`forfeited`: it no longer
   * holds it, and holds `granted` alone).
   */
  lease(input: {
    token: string;
    day: string;
    process: string;
    budget: number;
    need: number;
    want: (room: number) => number;
    expiresMs: number;
  }): Promise<BudgetDay & { granted: number; forfeited: boolean }>;
  /**
   * Adds each return's `used` and takes its `released` off the process's lease, and touches every
   * lease the process holds (it is alive), in one transaction. Answers the leases that had expired
   * before this touch: they went back, and the process holds nothing of them any more.
   */
  give(process: string, returns: readonly BudgetReturn[], expiresMs: number): Promise<ForfeitedLease[]>;
  /** Deletes days before `before` (`YYYY-MM-DD`), with their leases. */
  prune(before: string): Promise<void>;
}

const RETURNS = "jsonb_to_recordset($1::jsonb) as r(token text, day date, used bigint, released bigint)";

/**
 * A lease row seen (`seen`, its seen_at) more than the parameter `ms` milliseconds before `at`:
 * expired. `at` is a time taken once the token's day row is locked (the statement's start, after
 * the statement that locked it), never `now()`: that is the transaction's start, and a renewal
 * that waited for the row behind another process's lease would judge its lease, and stamp it
 * seen, as of before the wait. The other process, leasing meanwhile by its own later clock, would
 * have found that lease expired and leased it again: both would hold it.
 */
const expired = (seen: string, ms: string, at = "statement_timestamp()") =>
  `${seen} < ${at} - ${ms}::bigint * interval '1 millisecond'`;

// The days' rows of what the process gives and of every lease it holds, locked in one order
// (token, day): two processes giving at once never wait for each other crosswise, and no lease of
// these days is taken (lease() locks the day's row first) while the process's rows are touched.
const LOCK_DAYS = `
  select 1 from token_budgets b
  where (b.token, b.day) in (
    select r.token, r.day from ${RETURNS}
    union select l.token, l.day from budget_leases l where l.process = $2)
  order by b.token, b.day for update`;
const ADD_USED = `
  update token_budgets as b set used = b.used + r.used
  from ${RETURNS} where b.token = r.token and b.day = r.day and r.used > 0`;
// Every lease row of the process: what it releases comes off, and it is seen now. One that had
// expired is forfeited whole (other processes may have leased what it held).
const TOUCH = `
  with mine as (
    select l.token, l.day, l.leased > 0 and ${expired("l.seen_at", "$3")} as expired,
           coalesce(r.released, 0) as released
    from budget_leases l left join ${RETURNS} on r.token = l.token and r.day = l.day
    where l.process = $2
  )
  update budget_leases as l
  set leased = case when mine.expired then 0 else greatest(0, l.leased - mine.released) end,
      seen_at = statement_timestamp()
  from mine where l.process = $2 and l.token = mine.token and l.day = mine.day
  returning l.token, to_char(l.day, 'YYYY-MM-DD') as day, mine.expired`;

export function budgets(sql: Queryable): Budgets {
  return {
    lease: ({ token, day, process, budget, need, want, expiresMs }) =>
      sql.transaction(async (tx) => {
        await tx.query(
          "insert into token_budgets (token, day) values ($1, $2::date) on conflict do nothing",
          [token, day],
        );
        const [row] = await tx.query<{ used: string | number }>(
          "select used from token_budgets where token = $1 and day = $2::date for update",
          [token, day],
        );
        // Read after the day's row is locked: every lease granted before is committed and seen. Its
        // time (`at`) judges and stamps the leases for the rest of the transaction, so a lease
        // expiring meanwhile is not counted here and kept below.
        const [held] = await tx.query<{ leased: string | number; forfeited: boolean; at: string }>(
          `select coalesce(sum(leased) filter (where not ${expired("seen_at", "$4")}), 0) as leased,
                  coalesce(bool_or(process = $3 and leased > 0 and ${expired("seen_at", "$4")}), false) as forfeited,
                  statement_timestamp()::text as at
           from budget_leases where token = $1 and day = $2::date`,
          [token, day, process, expiresMs],
        );
        const used = Number(row?.used ?? 0);
        const leased = Number(held?.leased ?? 0);
        const forfeited = held?.forfeited === true;
        const room = budget - used - leased;
        const granted = room < need ? 0 : Math.min(room, Math.max(need, Math.floor(want(room))));
        if (granted > 0 || forfeited)
          await tx.query(
            `insert into budget_leases (token, day, process, leased, seen_at) values ($1, $2::date, $3, $4, $6::timestamptz)
             on conflict (token, day, process) do update set
               leased = case when ${expired("budget_leases.seen_at", "$5", "$6::timestamptz")}
                             then excluded.leased else budget_leases.leased + excluded.leased end,
               seen_at = excluded.seen_at`,
            [token, day, process, granted, expiresMs, held?.at],
          );
        return { used, leased: leased + granted, granted, forfeited };
      }),

    give: (process, returns, expiresMs) =>
      sql.transaction(async (tx) => {
        const given = jsonb(returns);
        await tx.query(LOCK_DAYS, [given, process]);
        if (returns.some((r) => r.used > 0)) await tx.query(ADD_USED, [given]);
        const touched = await tx.query<{ token: string; day: string; expired: boolean }>(TOUCH, [
          given,
          process,
          expiresMs,
        ]);
        return touched.filter((t) => t.expired).map(({ token, day }) => ({ token, day }));
      }),

    async prune(before) {
      await sql.query(
        `with leases as (delete from budget_leases where day < $1::date)
         delete from token_budgets where day < $1::date`,
        [before],
      );
    },
  };
}

import { jsonb, type Queryable } from "../db";

/** A day's row of one token's budget: what the engines reported, and what processes hold. */
export type BudgetDay = { used: number; leased: number };

/** What a process gives back of one token's day: tokens reported, and lease it no longer holds. */
export type BudgetReturn = { token: string; day: string; used: number; released: number };

/**
 * Client tokens' budgets by UTC day (SPEC §12.3), shared by every process on the database. A
 * process takes a lease before it admits requests against it, and later turns what its requests
 * used into `used` and gives back what it does not need.
 */
export interface Budgets {
  /**
   * Leases `want(room)` tokens of `token`'s `day` (`YYYY-MM-DD`), at least `need`, while `used +
   * leased` stays within `budget` (`room` is what it leaves): with the row locked, so processes taking leases at once queue
   * here and never give out more than the budget between them. Answers the lease granted (0 when
   * `need` did not fit) and the row as it is afterwards.
   */
  lease(input: {
    token: string;
    day: string;
    budget: number;
    need: number;
    want: (room: number) => number;
  }): Promise<BudgetDay & { granted: number }>;
  /** Adds each return's `used` and takes its `released` off `leased`, in one statement. */
  give(returns: readonly BudgetReturn[]): Promise<void>;
  /** Deletes days before `before` (`YYYY-MM-DD`). */
  prune(before: string): Promise<void>;
}

type DayRow = { used: string | number; leased: string | number };

const GIVE = `
  update token_budgets as b
  set used = b.used + r.used, leased = greatest(0, b.leased - r.released)
  from jsonb_to_recordset($1::jsonb) as r(token text, day date, used bigint, released bigint)
  where b.token = r.token and b.day = r.day`;

export function budgets(sql: Queryable): Budgets {
  return {
    lease: ({ token, day, budget, need, want }) =>
      sql.transaction(async (tx) => {
        await tx.query(
          "insert into token_budgets (token, day) values ($1, $2::date) on conflict do nothing",
          [token, day],
        );
        const [row] = await tx.query<DayRow>(
          "select used, leased from token_budgets where token = $1 and day = $2::date for update",
          [token, day],
        );
        const used = Number(row?.used ?? 0);
        const leased = Number(row?.leased ?? 0);
        const room = budget - used - leased;
        if (room < need) return { used, leased, granted: 0 };
        const granted = Math.min(room, Math.max(need, Math.floor(want(room))));
        await tx.query("update token_budgets set leased = leased + $3 where token = $1 and day = $2::date", [
          token,
          day,
          granted,
        ]);
        return { used, leased: leased + granted, granted };
      }),

    async give(returns) {
      if (returns.length === 0) return;
      await sql.query(GIVE, [jsonb(returns)]);
    },

    async prune(before) {
      await sql.query("delete from token_budgets where day < $1::date", [before]);
    },
  };
}

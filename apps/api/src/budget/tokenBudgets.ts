import { randomUUID } from "node:crypto";
import { budgetRefusalMessage, DAY_MS, dayOf, secondsToNextUtcDay, utcDayOf } from "@llmgw/domain";
import type { Logger } from "@llmgw/log";
import type { BudgetReturn, Budgets } from "@llmgw/store";
import { GatewayError } from "../gateway/errors";

// Client tokens' budgets a UTC day (SPEC §12.3), held across every process on one store.
//
// A process admits a request against a lease: tokens of the day's budget it took from the store's
// row (token_budgets: `used` + `leased` never over the budget, the row locked while a lease is
// taken). Admitting from the lease is a subtraction in memory; the store is asked only when the
// lease runs short. So the processes together never let through more than the budget, as long as
// no request uses more than it reserved; one whose engine reports more (a prompt longer than its
// bytes ÷ 4 says) is the "one reservation per process" SPEC allows.
//
// Lease size: the shortfall, at least, and up to LEASE_REQUESTS reservations, but never more than
// 1/LEASE_SHARE of what the day has left. Early in the day a process asks the store about once
// per LEASE_REQUESTS requests; near the end leases shrink with what is left, so what other
// processes hold unused (and a token may be refused while it exists) is a small part of the rest,
// down to about one reservation each. Every SYNC_MS, a process turns what its requests used into
// `used` (its lease shrinks by as much), and a token with no admission for IDLE_MS gives back what
// its lease holds beyond the requests in flight: an unused lease goes back within IDLE_MS + SYNC_MS.
// Each process's lease is a row of its own, which that sync touches every second while the
// process holds any: a process killed stops touching it, and LEASE_EXPIRES_MS later it no longer
// counts against the budget (SPEC §12.3 "a lease not used within a few seconds goes back"). A
// process that was silent that long (its database unreachable) finds its lease forfeited and
// holds nothing of it any more.
//
// Why 64: each lease is a transaction on the store. At 8 reservations a lease, a budget cost a
// proxied request 1.39× the CPU of the same server without counting or budgets; at 64, 1.18×
// (`BENCH='budget cpu'`, issue 39's aim ≤ 1.2×). The 1/LEASE_SHARE cap, not this, bounds what
// other processes hold near the day's end.

export const LEASE_REQUESTS = 64;
export const LEASE_SHARE = 8;
export const SYNC_MS = 1000;
export const IDLE_MS = 2000;
/** A lease its process has not touched for this long goes back (five syncs missed). */
export const LEASE_EXPIRES_MS = 5000;
/** Days kept in token_budgets (the current one, and a margin for clocks a little apart). */
const KEPT_DAYS = 2;

/** A budgeted client token, as the request path knows it. */
export type BudgetedToken = { name: string; role: string; tokensPerDay: number | null };

/** What one admitted request holds: settled once, when it ends, with the tokens it used. */
export type Reservation = { settle(used: number): void };

/** One token's day in this process. */
type Held = {
  token: string;
  day: string;
  budget: number;
  /** Taken from the store and not yet turned into `used` or given back. */
  lease: number;
  /** Reservations of the requests in flight. */
  reserved: number;
  /** Used by requests that ended since the last sync (still part of `lease`). */
  settled: number;
  lastAdmitAt: number;
  /** A lease being taken from the store: others wait for it, then look again. */
  taking: Promise<void> | null;
};

export type BudgetsOptions = {
  store: Budgets;
  /** The clock days are counted by (tests inject one). */
  now: () => number;
  log: Logger;
  /** Told of each refusal (llmgw_budget_refusals_total). */
  refused?: (token: string) => void;
};

export class TokenBudgets {
  /** This process's name on its lease rows. */
  readonly #process = randomUUID();
  readonly #held = new Map<string, Held>();
  #syncing: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #prunedDay = "";

  constructor(private readonly options: BudgetsOptions) {}

  /**
   * Reserves `reservation` tokens of the token's budget today, or throws 429 `budget_exceeded`
   * (Retry-After: until the next UTC day; the numbers in the message). Null for a token without
   * a budget.
   */
  async reserve(token: BudgetedToken, reservation: number): Promise<Reservation | null> {
    const budget = token.tokensPerDay;
    if (token.role !== "client" || budget === null) return null;
    const now = this.options.now();
    const day = utcDayOf(now);
    const held = this.#heldFor(token.name, day, budget);
    held.lastAdmitAt = performance.now();
    for (;;) {
      if (held.lease - held.reserved - held.settled >= reservation) {
        held.reserved += reservation;
        return this.#reservation(held, reservation);
      }
      if (held.taking) {
        await held.taking;
        continue;
      }
      const need = reservation - Math.max(0, held.lease - held.reserved - held.settled);
      let row: { used: number; leased: number; granted: number } | null = null;
      held.taking = this.options.store
        .lease({
          token: held.token,
          day,
          process: this.#process,
          budget,
          need,
          want: (room) => Math.min(reservation * LEASE_REQUESTS, room / LEASE_SHARE),
          expiresMs: LEASE_EXPIRES_MS,
        })
        .then((r) => {
          row = r;
          // A forfeited lease went back to the day: this process holds only what it was granted.
          held.lease = r.forfeited ? r.granted : held.lease + r.granted;
        })
        .finally(() => {
          held.taking = null;
        });
      await held.taking;
      const taken = row as { used: number; leased: number; granted: number } | null;
      if (taken === null || taken.granted > 0) continue;
      // What is left for this request: the day's room plus what this process's lease has spare,
      // which requests that ended while the store was asked may have grown: then look again.
      const left =
        Math.max(0, budget - taken.used - taken.leased) +
        Math.max(0, held.lease - held.reserved - held.settled);
      if (left >= reservation) continue;
      this.options.refused?.(token.name);
      throw new GatewayError({
        code: "budget_exceeded",
        message: budgetRefusalMessage(Math.max(0, budget - left), budget, reservation),
        headers: { "Retry-After": String(secondsToNextUtcDay(now)) },
      });
    }
  }

  /** Gives the store what requests used and what idle leases hold; runs every SYNC_MS once started. */
  sync(): Promise<void> {
    this.#syncing ??= this.#write().finally(() => {
      this.#syncing = null;
    });
    return this.#syncing;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.sync(), SYNC_MS);
    this.#timer.unref();
  }

  /** Stops syncing and gives back every lease beyond the requests still in flight. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#syncing;
    await this.#write(true);
  }

  #heldFor(token: string, day: string, budget: number): Held {
    const key = `${token}\n${day}`;
    let held = this.#held.get(key);
    if (!held) {
      held = { token, day, budget, lease: 0, reserved: 0, settled: 0, lastAdmitAt: 0, taking: null };
      this.#held.set(key, held);
    }
    held.budget = budget;
    return held;
  }

  #reservation(held: Held, reservation: number): Reservation {
    let settled = false;
    return {
      settle: (used) => {
        if (settled) return;
        settled = true;
        held.reserved -= reservation;
        held.settled += Math.max(0, Math.round(used));
      },
    };
  }

  async #write(all = false): Promise<void> {
    const at = performance.now();
    const today = utcDayOf(this.options.now());
    const returns: BudgetReturn[] = [];
    const undo: (() => void)[] = [];
    /** Each lease as the store holds it once these returns are given (what a forfeit takes). */
    const given = new Map<Held, number>();
    for (const [key, held] of this.#held) {
      given.set(held, held.lease);
      if (held.taking) continue;
      const idle = all || held.day !== today || at - held.lastAdmitAt >= IDLE_MS;
      const used = held.settled;
      // What it used leaves the lease; an idle one gives back all but what is in flight.
      const consumed = Math.min(used, held.lease);
      const spare = idle ? Math.max(0, held.lease - consumed - held.reserved) : 0;
      if (used === 0 && spare === 0) {
        if (idle && held.lease === 0 && held.reserved === 0) this.#held.delete(key);
        continue;
      }
      held.settled -= used;
      held.lease -= consumed + spare;
      given.set(held, held.lease);
      returns.push({ token: held.token, day: held.day, used, released: consumed + spare });
      undo.push(() => {
        held.settled += used;
        held.lease += consumed + spare;
      });
    }
    // Nothing to give and no lease to keep alive: the store is not asked.
    if (returns.length > 0 || [...given.values()].some((lease) => lease > 0)) {
      let forfeited: { token: string; day: string }[];
      try {
        forfeited = await this.options.store.give(this.#process, returns, LEASE_EXPIRES_MS);
      } catch (err) {
        for (const back of undo) back();
        this.options.log.error({ err }, "returning budget leases failed (kept for the next second)");
        return;
      }
      // Leases this process did not touch for LEASE_EXPIRES_MS went back: what it held of them is
      // gone (a lease granted since, after the touch, stays).
      for (const { token, day } of forfeited) {
        const held = this.#held.get(`${token}\n${day}`);
        if (!held) continue;
        this.options.log.warn({ token, day }, "a budget lease expired unused for too long and went back");
        held.lease = Math.max(0, held.lease - (given.get(held) ?? 0));
      }
    }
    if (this.#prunedDay === today) return;
    this.#prunedDay = today;
    const before = utcDayOf(dayOf(this.options.now()) - KEPT_DAYS * DAY_MS);
    await this.options.store
      .prune(before)
      .catch((err: unknown) => this.options.log.warn({ err }, "pruning old budget days failed"));
  }
}

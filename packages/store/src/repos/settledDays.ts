import { DAY_MS, type UsageKey, type UsageSum } from "@llmgw/domain";

/** Sums kept at most, over every day and key: 90 days of 2,000 tokens every day is 180,000. */
const MAX_SUMS = 250_000;

/**
 * Whole UTC days' usage sums (SPEC §12.2) by key, kept in this process once read: a dashboard reads
 * the same 90 days again on every live update, and a day that ended long enough ago (the caller
 * says when: `settledBefore`) no longer changes, processes writing each second. Only days read from
 * the store's day rows are kept, never an hour's; the least recently read go first past
 * MAX_SUMS. A read that began before `forget` keeps nothing (the epoch moved), so emptied tables
 * (tests) never get old sums back.
 */
export class SettledDays {
  #epoch = 0;
  #held = 0;
  /** By `${by} ${day}`: that day's sums in reading order (never changed once kept). */
  readonly #days = new Map<string, readonly UsageSum[]>();

  constructor(private readonly limit = MAX_SUMS) {}

  get epoch(): number {
    return this.#epoch;
  }

  forget(): void {
    this.#epoch++;
    this.#held = 0;
    this.#days.clear();
  }

  /** The day's sums if kept (and now the most recently read), else undefined. */
  get(by: UsageKey, day: number): readonly UsageSum[] | undefined {
    const id = `${by} ${day}`;
    const sums = this.#days.get(id);
    if (sums === undefined) return undefined;
    this.#days.delete(id);
    this.#days.set(id, sums);
    return sums;
  }

  /**
   * Keeps the sums of the whole days [from, to), as read in one query begun at `epoch` (in order,
   * so each day's are a run): a day with none is kept as none.
   */
  keep(by: UsageKey, from: number, to: number, sums: readonly UsageSum[], epoch: number): void {
    if (epoch !== this.#epoch) return;
    let i = 0;
    for (let day = from; day < to; day += DAY_MS) {
      const start = i;
      while (i < sums.length && (sums[i] as UsageSum).at < day + DAY_MS) i++;
      this.#put(`${by} ${day}`, sums.slice(start, i));
    }
  }

  #put(id: string, sums: readonly UsageSum[]): void {
    if (sums.length > this.limit) return;
    const was = this.#days.get(id);
    if (was !== undefined) {
      this.#days.delete(id);
      this.#held -= was.length;
    }
    this.#days.set(id, sums);
    this.#held += sums.length;
    for (const [oldest, gone] of this.#days) {
      if (this.#held <= this.limit) break;
      this.#days.delete(oldest);
      this.#held -= gone.length;
    }
  }
}

import type { Db } from "../db";

/** Every token insert and removal NOTIFYs this channel, so each process forgets what it cached. */
export const TOKENS_CHANNEL = "llmgw_tokens";

/** How long a cached answer is trusted without a notification (a lost one, a dropped LISTEN). */
const TRUST_MS = 5_000;
/** Lookups by hash kept at most: a client trying random secrets must not grow memory. */
const MAX_HASHES = 1_000;

type Entry<T> = { value: T; at: number };

/**
 * What every request asks about tokens — does any exist, whose secret is this — answered from
 * memory instead of a query per request (an agent's heartbeat is mostly this). A write through this
 * store forgets at once; a write through another process sharing PostgreSQL arrives as a NOTIFY
 * after its commit; and nothing is trusted longer than TRUST_MS in case a notification was lost.
 * A read that began before a forget is not cached (the epoch moved), so a stale answer is never
 * put back. `Token` is what the repository (tokens.ts) reads, left open so this module does not
 * import the repository that uses it.
 */
export class TokenCache<Token> {
  #epoch = 0;
  #any: Entry<boolean> | null = null;
  readonly #byHash = new Map<string, Entry<Token | null>>();
  #listening: Promise<boolean> | null = null;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  forget(): void {
    this.#epoch++;
    this.#any = null;
    this.#byHash.clear();
  }

  any(load: () => Promise<boolean>): Promise<boolean> {
    return this.#read(this.#any, load, (entry) => {
      this.#any = entry;
    });
  }

  byHash(sha256: string, load: () => Promise<Token | null>): Promise<Token | null> {
    return this.#read(this.#byHash.get(sha256) ?? null, load, (entry) => {
      if (this.#byHash.size >= MAX_HASHES) this.#byHash.clear();
      this.#byHash.set(sha256, entry);
    });
  }

  async #read<T>(
    entry: Entry<T> | null,
    load: () => Promise<T>,
    keep: (entry: Entry<T>) => void,
  ): Promise<T> {
    const now = this.now();
    if (entry && now - entry.at < TRUST_MS) return entry.value;
    const epoch = this.#epoch;
    const listening = await this.#listen();
    const value = await load();
    if (listening && epoch === this.#epoch) keep({ value, at: now });
    return value;
  }

  /** Caches only once it hears other processes' changes; PGlite has no other process. */
  #listen(): Promise<boolean> {
    this.#listening ??= this.db
      .listen(TOKENS_CHANNEL, () => this.forget())
      .then(
        () => true,
        () => {
          this.#listening = null;
          return false;
        },
      );
    return this.#listening;
  }
}

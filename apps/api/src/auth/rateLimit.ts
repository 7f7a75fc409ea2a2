import type { Context } from "hono";

/**
 * A sliding window of attempts per key (sign-ins per client address). Attempts refused for being
 * over the limit do not count, so waiting `retryAfter` seconds is always enough. Memory is bounded:
 * past `maxKeys` addresses the least recently seen is forgotten.
 */
export class RateLimit {
  readonly #hits = new Map<string, number[]>();

  constructor(
    readonly attempts: number,
    readonly windowMs: number,
    readonly maxKeys = 10_000,
  ) {}

  /** Counts an attempt at `now` (ms); returns 0 when allowed, else the seconds to wait. */
  take(key: string, now: number): number {
    const recent = (this.#hits.get(key) ?? []).filter((at) => at > now - this.windowMs);
    this.#hits.delete(key);
    if (recent.length >= this.attempts) {
      this.#hits.set(key, recent);
      const oldest = recent[0] ?? now;
      return Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
    }
    recent.push(now);
    this.#hits.set(key, recent);
    if (this.#hits.size > this.maxKeys) {
      const first = this.#hits.keys().next();
      if (!first.done) this.#hits.delete(first.value);
    }
    return 0;
  }
}

/**
 * The address of the connection, from Node's socket. X-Forwarded-For is not read: anyone can send
 * one, and a limit keyed on it is no limit. Behind a proxy every client shares its address, which
 * makes the limit stricter, not looser. "unknown" for in-process requests (tests).
 */
export function clientAddress(c: Context): string {
  const env: unknown = c.env;
  if (typeof env !== "object" || env === null || !("incoming" in env)) return "unknown";
  const incoming: unknown = env.incoming;
  if (typeof incoming !== "object" || incoming === null || !("socket" in incoming)) return "unknown";
  const socket: unknown = incoming.socket;
  if (typeof socket !== "object" || socket === null || !("remoteAddress" in socket)) return "unknown";
  return typeof socket.remoteAddress === "string" ? socket.remoteAddress : "unknown";
}

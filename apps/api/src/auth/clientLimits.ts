import type { Model } from "@llmgw/domain";
import { counted } from "@llmgw/domain";
import { AppError } from "../errors";
import type { KnownToken } from "./tokenBook";

// A client token's limits on the request path (SPEC §4, §7.6): the models it may call, requests a
// minute, and requests in flight. Per process: several processes sharing one PostgreSQL each allow
// a token its limits (the limits bound one client's pressure on one gateway, not a billing count).

/** Seconds of the sliding window, kept as one count per second: memory per token is fixed. */
const WINDOW_SECONDS = 60;
/** Below this many tokens tracked, nothing is swept; above, idle ones are forgotten. */
const SWEEP_FROM = 1024;

/**
 * Admits a request of `token` for `model`, or throws: 403 `model_not_allowed` when the token lists
 * models and this is none of them (by name or alias); 429 `rate_limited` with Retry-After past its
 * requests a minute or its concurrency (`inFlight`: its requests in flight now, as the gateway
 * counts them). A null token (a server without tokens) and a token without limits always pass.
 * Holds nothing for the request: the gateway's own count frees its concurrency when it ends.
 */
export class ClientLimits {
  readonly #usage = new Map<string, MinuteWindow>();
  #sweepAt = SWEEP_FROM;

  /** `now` in milliseconds; tests pass a fake clock. */
  constructor(private readonly now: () => number = Date.now) {}

  admit(token: KnownToken | null, model: Model, inFlight = 0): void {
    if (token === null) return;
    if (token.models !== null && !listsModel(token.models, model)) {
      throw new AppError({
        code: "model_not_allowed",
        message: `the token ${token.name} may not call ${model.name}: it may call ${namesOf(token.models)}`,
      });
    }
    const { requestsPerMinute, concurrency } = token;
    if (requestsPerMinute === null && concurrency === null) return;

    const now = this.now();
    // Keyed by hash: a token revoked and made again under its name starts afresh.
    const minute = requestsPerMinute === null ? null : this.#minuteOf(token.sha256);
    // The minute first: when both are full, its wait is the one that matters.
    if (minute !== null && requestsPerMinute !== null) {
      const wait = minute.wait(now, requestsPerMinute);
      if (wait > 0)
        throw rateLimited(
          `the token ${token.name} may send ${counted(requestsPerMinute, "request")} a minute`,
          wait,
        );
    }
    if (concurrency !== null && inFlight >= concurrency) {
      throw rateLimited(`the token ${token.name} may have ${counted(concurrency, "request")} in flight`, 1);
    }
    minute?.add(now);
  }

  /** How many tokens are tracked (for tests of the memory bound). */
  get tracked(): number {
    return this.#usage.size;
  }

  #minuteOf(key: string): MinuteWindow {
    let minute = this.#usage.get(key);
    if (!minute) {
      minute = new MinuteWindow();
      this.#usage.set(key, minute);
      if (this.#usage.size > this.#sweepAt) this.#sweep();
    }
    return minute;
  }

  /**
   * Forgets tokens with nothing in the last minute: they would be admitted as if new. The threshold
   * doubles with what remains, so sweeping costs O(1) per request amortised.
   */
  #sweep(): void {
    const now = this.now();
    for (const [key, minute] of this.#usage) {
      if (minute.isEmpty(now)) this.#usage.delete(key);
    }
    this.#sweepAt = Math.max(SWEEP_FROM, this.#usage.size * 2);
  }
}

function listsModel(models: readonly string[], model: Model): boolean {
  return models.includes(model.name) || model.aliases.some((alias) => models.includes(alias));
}

/** The list as a message can hold it: the first few, then how many more. */
function namesOf(models: readonly string[]): string {
  const shown = models.slice(0, 8).join(", ");
  return models.length > 8 ? `${shown} and ${models.length - 8} more` : shown;
}

function rateLimited(message: string, seconds: number): AppError {
  return new AppError({
    code: "rate_limited",
    message: `${message}; retry in ${seconds} s`,
    headers: {
      "Retry-After": String(seconds),
    },
  });
}

/**
 * Requests admitted in the last 60 seconds, counted per whole second: a request counts until the
 * 60th second after the one it was admitted in has begun (between 59 and 60 s). Fixed memory,
 * whatever the limit.
 */
class MinuteWindow {
  readonly #counts = new Uint32Array(WINDOW_SECONDS);
  /** The second each slot counts; a slot of an older second holds nothing any more. */
  readonly #seconds = new Float64Array(WINDOW_SECONDS).fill(Number.NEGATIVE_INFINITY);

  add(now: number): void {
    const second = Math.floor(now / 1000);
    const slot = second % WINDOW_SECONDS;
    if (this.#seconds[slot] !== second) {
      this.#seconds[slot] = second;
      this.#counts[slot] = 0;
    }
    this.#counts[slot] = (this.#counts[slot] ?? 0) + 1;
  }

  /** 0 when one more request fits under `limit`, else the whole seconds until one does (≥ 1). */
  wait(now: number, limit: number): number {
    const current = Math.floor(now / 1000);
    let total = this.#countSince(current);
    if (total < limit) return 0;
    // Oldest second first: the wait is until enough of them have left the window.
    for (let second = current - WINDOW_SECONDS + 1; second <= current; second += 1) {
      total -= this.#countOf(second);
      if (total < limit) return Math.max(1, Math.ceil(((second + WINDOW_SECONDS) * 1000 - now) / 1000));
    }
    return WINDOW_SECONDS;
  }

  isEmpty(now: number): boolean {
    return this.#countSince(Math.floor(now / 1000)) === 0;
  }

  #countSince(current: number): number {
    let total = 0;
    for (let second = current - WINDOW_SECONDS + 1; second <= current; second += 1) {
      total += this.#countOf(second);
    }
    return total;
  }

  #countOf(second: number): number {
    const slot = ((second % WINDOW_SECONDS) + WINDOW_SECONDS) % WINDOW_SECONDS;
    return this.#seconds[slot] === second ? (this.#counts[slot] ?? 0) : 0;
  }
}

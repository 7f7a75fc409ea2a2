import type { Logger } from "@llmgw/log";
import type { GatewayMeter } from "./meter";
import { NO_USAGE, type Usage } from "./usage";

/**
 * Requests in flight per token: the one count that a client token's concurrency is checked
 * against and that the meter's `in_flight_by_token` reads. Kept by the token's key (its SHA-256: a
 * token revoked and made again under its name starts afresh), shown by its name.
 */
export class TokenFlights {
  readonly #byKey = new Map<string, { name: string; count: number }>();

  /** Requests of this token in flight now. */
  of(key: string): number {
    return this.#byKey.get(key)?.count ?? 0;
  }

  add(key: string, name: string): void {
    const held = this.#byKey.get(key);
    if (held) held.count++;
    else this.#byKey.set(key, { name, count: 1 });
  }

  remove(key: string): void {
    const held = this.#byKey.get(key);
    if (!held) return;
    if (--held.count <= 0) this.#byKey.delete(key);
  }

  /** In flight per token name, for the meter. */
  byName(): Map<string, number> {
    const names = new Map<string, number>();
    for (const { name, count } of this.#byKey.values()) names.set(name, (names.get(name) ?? 0) + count);
    return names;
  }
}

/** How a request ended, for what it held to be released by (a budget settles on its usage). */
export type Ended = { usage: Usage; sent: boolean };

/**
 * One request's way through the gateway, timed from arrival (performance.now()): when it was sent,
 * when its first byte reached the client, and what must run when it ends. `end` runs once, however
 * the request ends (answered, failed, refused, timed out, the client gone): it frees what the
 * request held (its slot, its token's count) and tells the meter.
 */
export class Flight {
  readonly arrivedAt = performance.now();
  model = "";
  /** The model's owner, once the model is known (SPEC §12.1 counts by it). */
  owner = "";
  /** The client token's name, when a client token sent it. */
  clientToken: string | null = null;
  #errorEvent = false;
  #sentAt: number | null = null;
  #firstByteAt: number | null = null;
  #releases: ((ended: Ended) => void)[] = [];
  #counted: string | null = null;
  #ended = false;

  constructor(
    /** The token's name ("local" without tokens, "" before anyone was authenticated). */
    readonly token: string,
    private readonly meter: GatewayMeter,
    private readonly tokens: TokenFlights,
    private readonly log: Logger,
  ) {}

  /** Counts the request as its token's, under `key`, until it ends. */
  count(key: string): void {
    if (this.#counted !== null || this.#ended) return;
    this.#counted = key;
    this.tokens.add(key, this.token);
  }

  /** What to run when the request ends, whichever way (told its usage and whether it was sent). */
  onEnd(release: (ended: Ended) => void): void {
    if (this.#ended) release({ usage: NO_USAGE, sent: this.#sentAt !== null });
    else this.#releases.push(release);
  }

  sent(): void {
    this.#sentAt ??= performance.now();
  }

  /** Its stream was ended with an error event (counted as failed). */
  erred(): void {
    this.#errorEvent = true;
  }

  firstByte(): void {
    this.#firstByteAt ??= performance.now();
  }

  end(status: number, usage: Usage = NO_USAGE): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#counted !== null) this.tokens.remove(this.#counted);
    const ended: Ended = { usage, sent: this.#sentAt !== null };
    for (const release of this.#releases) {
      try {
        release(ended);
      } catch (err) {
        this.log.error({ err, model: this.model, token: this.token }, "releasing a request's hold failed");
      }
    }
    this.#releases.length = 0;
    const now = performance.now();
    this.meter.finished({
      model: this.model,
      token: this.token,
      status,
      queuedMs: this.#sentAt === null ? now - this.arrivedAt : this.#sentAt - this.arrivedAt,
      firstByteMs: this.#firstByteAt === null ? null : this.#firstByteAt - this.arrivedAt,
      durationMs: now - this.arrivedAt,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      ...(usage.cachedTokens === undefined ? {} : { cachedTokens: usage.cachedTokens }),
      clientToken: this.clientToken,
      owner: this.owner,
      sent: this.#sentAt !== null,
      errorEvent: this.#errorEvent,
    });
  }
}

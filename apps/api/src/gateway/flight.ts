import type { Logger } from "@llmgw/log";
import type { GatewayMeter } from "./meter";
import type { Usage } from "./usage";

/**
 * One request's way through the gateway, timed from arrival (performance.now()): when it was sent,
 * when its first byte reached the client, and what must run when it ends. `end` runs once: it
 * releases what the request held and tells the meter.
 */
export class Flight {
  readonly arrivedAt = performance.now();
  model = "";
  #sentAt: number | null = null;
  #firstByteAt: number | null = null;
  #releases: (() => void)[] = [];
  #ended = false;

  constructor(
    readonly token: string,
    private readonly meter: GatewayMeter,
    private readonly tokens: Map<string, number>,
    private readonly log: Logger,
  ) {
    tokens.set(token, (tokens.get(token) ?? 0) + 1);
  }

  /** What to run when the request ends, whichever way. */
  onEnd(release: () => void): void {
    if (this.#ended) release();
    else this.#releases.push(release);
  }

  sent(): void {
    this.#sentAt ??= performance.now();
  }

  firstByte(): void {
    this.#firstByteAt ??= performance.now();
  }

  end(status: number, usage: Usage | null = null): void {
    if (this.#ended) return;
    this.#ended = true;
    const left = (this.tokens.get(this.token) ?? 1) - 1;
    if (left > 0) this.tokens.set(this.token, left);
    else this.tokens.delete(this.token);
    for (const release of this.#releases.splice(0)) {
      try {
        release();
      } catch (err) {
        this.log.error({ err, model: this.model, token: this.token }, "releasing a request's hold failed");
      }
    }
    const now = performance.now();
    this.meter.finished({
      model: this.model,
      token: this.token,
      status,
      queuedMs: this.#sentAt === null ? now - this.arrivedAt : this.#sentAt - this.arrivedAt,
      firstByteMs: this.#firstByteAt === null ? null : this.#firstByteAt - this.arrivedAt,
      durationMs: now - this.arrivedAt,
      promptTokens: usage?.promptTokens ?? null,
      completionTokens: usage?.completionTokens ?? null,
    });
  }
}

import { CLIENT_WENT_AWAY } from "./dispatcher";
import { errorEvent, GatewayError } from "./errors";
import type { Exchange } from "./exchange";
import type { Flight } from "./flight";
import { clientHeadOf, type EngineHead } from "./head";
import { UsageChunkFilter } from "./hideUsage";
import type { AnswerSink } from "./sink";
import { type EngineCall, type EngineListener, isSilence } from "./upstream";
import { UsageCounter } from "./usage";

/** The client went away: there is nobody to answer (the status the meter records). */
export const CLIENT_GONE = 499;

/** What an engine call brought before its answer was handed to the client's side. */
export type Held = {
  /** The body's chunks so far (the first one at least, unless it ended empty). */
  chunks: Buffer[];
  ended: boolean;
  /** It failed after its first chunk, before the writer took over. */
  failed: Error | null;
};

/**
 * The one writer of an engine's answer to the client (SPEC §7.5, §7.5a), on any sink: the head
 * (only what may pass, plus an event stream's own), then each chunk as it comes with the client's
 * backpressure, `usage` counted on the way (a bounded tail), and the end: the request ends once,
 * however it ends. A failure after the head ends an event stream with an error event and cuts any
 * other answer short; the client going away aborts the engine's call at once.
 */
export class AnswerWriter implements EngineListener {
  readonly #usage: UsageCounter;
  readonly #sink: AnswerSink;
  /** Set when the gateway asked for usage the client did not: its chunk is left out. */
  readonly #hide: UsageChunkFilter | null;
  #stopListening: () => void = () => {};

  constructor(
    private readonly flight: Flight,
    private readonly ex: Exchange,
    private readonly call: EngineCall,
    private readonly engine: EngineHead,
    /** Seconds an engine may stay silent (for the error event's words). */
    private readonly idleSeconds: number,
    hideUsage = false,
  ) {
    this.#usage = new UsageCounter(engine.streaming);
    this.#sink = ex.sink;
    this.#hide = hideUsage && engine.streaming ? new UsageChunkFilter() : null;
  }

  /** What of an engine's chunk the client gets. */
  #out(chunk: Buffer): Buffer {
    return this.#hide ? this.#hide.push(chunk) : chunk;
  }

  /** Takes the call over with what it brought so far. */
  start(held: Held): void {
    const { chunks, ended, failed } = held;
    for (const chunk of chunks) this.#usage.push(chunk);
    if (chunks.length > 0) this.flight.firstByte();
    if (ended) {
      // The whole answer came at once: it goes out in one write, with its length.
      const whole = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      const body = this.#hide ? Buffer.concat([this.#hide.push(whole), this.#hide.end()]) : whole;
      this.#sink.head(this.engine.status, clientHeadOf(this.engine, body.byteLength));
      this.#sink.end(body);
      this.#done(this.engine.status);
      return;
    }
    this.#sink.head(this.engine.status, clientHeadOf(this.engine, null));
    for (const chunk of chunks) {
      const out = this.#out(chunk);
      if (out.byteLength > 0) this.#sink.write(out);
    }
    if (failed) {
      this.onFailed(failed);
      return;
    }
    // From here on the chunks come here, and the client's leaving ends the call.
    this.call.listener = this;
    this.#stopListening = this.ex.onGone(() => this.call.abort(CLIENT_WENT_AWAY));
  }

  onHead(): void {}

  onChunk(chunk: Buffer): boolean {
    this.#usage.push(chunk);
    const out = this.#out(chunk);
    if (out.byteLength === 0 || this.#sink.write(out)) return true;
    this.#sink.onDrain(() => this.call.resume());
    return false;
  }

  onEnd(): void {
    const rest = this.#hide?.end();
    if (rest && rest.byteLength > 0) this.#sink.end(rest);
    else this.#sink.end();
    this.#done(this.engine.status);
  }

  onFailed(err: Error): void {
    if (err === CLIENT_WENT_AWAY || this.ex.gone) {
      this.#sink.end();
      this.#done(CLIENT_GONE);
      return;
    }
    this.flight.erred();
    const rest = this.#hide?.end();
    if (rest && rest.byteLength > 0) this.#sink.write(rest);
    if (this.engine.streaming) this.#sink.end(errorEvent(this.#why(err)));
    else this.#sink.cut();
    this.#done(this.engine.status);
  }

  #why(err: Error): GatewayError {
    return isSilence(err)
      ? new GatewayError({
          code: "upstream_timeout",
          message: `the replica sent nothing for ${this.idleSeconds} s`,
        })
      : new GatewayError({ code: "upstream_failed", message: "the replica failed mid-answer" });
  }

  #done(status: number): void {
    this.#stopListening();
    this.flight.end(status, this.#usage.usage);
  }
}

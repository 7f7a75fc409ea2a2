import type { EphemeralEvent } from "@llmgw/domain";
import type { CommittedEvent, EventHub } from "./eventHub";
import { ephemeralFrameOf, frameOf } from "./frame";
import type { OpenStream } from "./openStream";

/**
 * The open event streams of one route, fed by one hub listener and one heartbeat timer (not one
 * of each per stream): an event is encoded once and its bytes written to every stream in turn.
 * Both are held only while a stream is open.
 */
export class Broadcast {
  readonly #streams = new Set<OpenStream>();
  #unsubscribe: (() => void)[] = [];
  #heartbeat: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly hub: EventHub,
    private readonly heartbeatMs: number,
  ) {}

  /** Adds a stream; from now on it is given every published event (it holds stored ones while it replays). */
  add(stream: OpenStream): void {
    if (stream.closed) return;
    if (this.#streams.size === 0) {
      this.#unsubscribe = [
        this.hub.subscribe((event) => this.#deliver(event)),
        this.hub.subscribeEphemeral((event) => this.#deliverEphemeral(event)),
      ];
      // Ticks at half the interval: a stream that wrote is not sent a heartbeat it does not need.
      this.#heartbeat = setInterval(() => this.#beat(), this.heartbeatMs / 2);
      this.#heartbeat.unref();
    }
    this.#streams.add(stream);
    stream.whenClosed(() => this.#remove(stream));
  }

  #deliver(event: CommittedEvent): void {
    const frame = frameOf(event);
    for (const stream of this.#streams) stream.deliver(event, frame);
  }

  #deliverEphemeral(event: EphemeralEvent): void {
    const frame = ephemeralFrameOf(event);
    for (const stream of this.#streams) stream.deliverEphemeral(frame);
  }

  #beat(): void {
    for (const stream of this.#streams) stream.beat();
  }

  #remove(stream: OpenStream): void {
    this.#streams.delete(stream);
    if (this.#streams.size > 0) return;
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
  }
}

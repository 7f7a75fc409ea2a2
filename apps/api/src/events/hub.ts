import type { EventType } from "@llmgw/domain";

export type LiveEvent = { id: number; type: EventType; data: unknown };
type Listener = (event: LiveEvent) => void;
/**
 * An event for this process's open streams alone, never stored (`model.traffic`, SPEC §7.7): it
 * has no id, so a stream sends it without an `id:` line and a client's Last-Event-ID stays the
 * last stored event's. A client that reconnects is not replayed it; it gets the next one.
 */
export type EphemeralEvent = { type: EventType; data: unknown };
type EphemeralListener = (event: EphemeralEvent) => void;
/** Delivers this process's own committed events in id order, together with other processes' (relay.ts). */
export type Sequencer = (own: LiveEvent[]) => Promise<void>;

/**
 * Fans committed events out to this process's open streams. Events are written to the store in
 * the transaction of the change they describe (so ids come from the database and a stream can
 * resume anywhere); the hub only carries them to listeners after the commit.
 */
export class EventHub {
  readonly #listeners = new Set<Listener>();
  readonly #ephemeral = new Set<EphemeralListener>();
  #sequencer: Sequencer | null = null;

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * What a commit calls with the events it just stored. Alone on its database the process
   * publishes them at once; sharing PostgreSQL with others, the relay interleaves them with the
   * others' events so every stream sees each id once, in order.
   */
  async announce(events: LiveEvent[]): Promise<void> {
    if (this.#sequencer) await this.#sequencer(events);
    else this.publish(events);
  }

  /** Set by the relay while it runs; null puts the hub back to publishing directly. */
  sequenceWith(sequencer: Sequencer | null): void {
    this.#sequencer = sequencer;
  }

  publish(events: Iterable<LiveEvent>): void {
    for (const event of events) for (const listener of this.#listeners) listener(event);
  }

  /** Listeners of ephemeral events (the open streams), apart: the scheduler reacts to stored events only. */
  subscribeEphemeral(listener: EphemeralListener): () => void {
    this.#ephemeral.add(listener);
    return () => this.#ephemeral.delete(listener);
  }

  /** Hands an unstored event to this process's streams now (no sequencing: it has no id to order). */
  sendEphemeral(event: EphemeralEvent): void {
    for (const listener of this.#ephemeral) listener(event);
  }

  get listeners(): number {
    return this.#listeners.size;
  }
}

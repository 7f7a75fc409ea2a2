import type { ChangeEvent, EphemeralEvent } from "@llmgw/domain";

/** A change event as committed: the domain's union with the id the store gave it. */
export type CommittedEvent = ChangeEvent & { id: number };
type Listener = (event: CommittedEvent) => void;
type EphemeralListener = (event: EphemeralEvent) => void;
/** Delivers this process's own committed events in id order, together with other processes' (relay.ts). */
export type Sequencer = (own: CommittedEvent[]) => Promise<void>;

/**
 * Fans committed events out to this process's open streams. Events are written to the store in
 * the transaction of the change they describe (so ids come from the database and a stream can
 * resume anywhere); the hub only carries them to listeners after the commit.
 */
export class EventHub {
  readonly #listeners = new Set<Listener>();
  readonly #ephemeral = new Set<EphemeralListener>();
  readonly #firstEphemeral = new Set<() => void>();
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
  async announce(events: CommittedEvent[]): Promise<void> {
    if (this.#sequencer) await this.#sequencer(events);
    else this.publish(events);
  }

  /** Set by the relay while it runs; null puts the hub back to publishing directly. */
  sequenceWith(sequencer: Sequencer | null): void {
    this.#sequencer = sequencer;
  }

  publish(events: Iterable<CommittedEvent>): void {
    for (const event of events) for (const listener of this.#listeners) listener(event);
  }

  /** Listeners of ephemeral events (the open streams), apart: the scheduler reacts to stored events only. */
  subscribeEphemeral(listener: EphemeralListener): () => void {
    const first = this.#ephemeral.size === 0;
    this.#ephemeral.add(listener);
    if (first) for (const opened of this.#firstEphemeral) opened();
    return () => this.#ephemeral.delete(listener);
  }

  /**
   * Called, at once, when the first stream opens after none was open: what is computed only for
   * open streams starts from the picture of that moment (see `startHeadroomChanges`).
   */
  onFirstEphemeral(opened: () => void): () => void {
    this.#firstEphemeral.add(opened);
    return () => this.#firstEphemeral.delete(opened);
  }

  /**
   * Hands an ephemeral event (`model.traffic`, SPEC §7.7) to this process's streams now: it is
   * never stored and has no id to order, so a stream sends it without an `id:` line and a client's
   * Last-Event-ID stays the last stored event's. A client that reconnects gets the next one.
   */
  sendEphemeral(event: EphemeralEvent): void {
    for (const listener of this.#ephemeral) listener(event);
  }

  get listeners(): number {
    return this.#listeners.size;
  }

  /** How many open streams take ephemeral events: none, and nothing need be computed for them. */
  get ephemeralListeners(): number {
    return this.#ephemeral.size;
  }
}

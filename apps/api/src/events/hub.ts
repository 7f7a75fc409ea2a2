import type { EventType } from "@llmgw/domain";

export type LiveEvent = { id: number; type: EventType; data: unknown };
type Listener = (event: LiveEvent) => void;

/**
 * Fans committed events out to this process's open streams. Events are written to the store in
 * the transaction of the change they describe (so ids come from the database and a stream can
 * resume anywhere); the hub only carries them to listeners after the commit.
 */
export class EventHub {
  readonly #listeners = new Set<Listener>();

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(events: Iterable<LiveEvent>): void {
    for (const event of events) for (const listener of this.#listeners) listener(event);
  }

  get listeners(): number {
    return this.#listeners.size;
  }
}

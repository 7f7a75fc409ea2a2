import { liveEventOf } from "@llmgw/client/events";
import { EVENT_TYPES, type EventData, type EventType } from "@llmgw/domain";
import { useSyncExternalStore } from "react";
import { API_BASE } from "./api";

/**
 * The dashboard's one event stream. A single EventSource on `/api/v1/events` carries every change;
 * each feature subscribes to the events that touch its part of the query cache (see
 * `features/*\/live.ts`), so query keys stay written in one place and this file knows none.
 *
 * EventSource reconnects by itself and sends `Last-Event-ID`, so the server replays what was
 * missed. When the browser gives up (the server answered with an error), we open a new one with
 * `?lastEventId=` after a pause, and ask the app to refetch in case the replay cannot cover the gap.
 *
 * Events and their payloads are the domain's union (`@llmgw/domain` events.ts), each frame parsed
 * by it (`liveEventOf`): a handler gets its type's payload, and a payload change that breaks a
 * screen fails the type check.
 */

export type LiveStatus = "connecting" | "online" | "offline";

type Handler<K extends EventType> = (data: EventData<K>) => void;
/** Each type's handlers, kept by type so a handler is only ever given its own type's payload. */
type Handlers = { [K in EventType]: Set<Handler<K>> };

const RETRY_MS = [1000, 2000, 5000, 10000];

export class LiveStream {
  #source: EventSource | null = null;
  #status: LiveStatus = "connecting";
  #lastEventId: string | null = null;
  #wasOffline = false;
  #retries = 0;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  readonly #handlers = Object.fromEntries(EVENT_TYPES.map((type) => [type, new Set()])) as Handlers;
  readonly #statusListeners = new Set<() => void>();
  readonly #resyncListeners = new Set<() => void>();

  constructor(readonly url: string = `${API_BASE}/events`) {}

  /** Opens the stream; the returned function closes it. */
  connect(): () => void {
    this.#open();
    const online = () => {
      if (this.#source === null || this.#source.readyState === EventSource.CLOSED) this.#open();
    };
    window.addEventListener("online", online);
    return () => {
      window.removeEventListener("online", online);
      this.#close();
    };
  }

  /** Opens the stream again now (after signing in again): no waiting out the retry back-off. */
  restart(): void {
    this.#retries = 0;
    this.#open();
  }

  on<K extends EventType>(type: K, handler: Handler<K>): () => void {
    const set: Set<Handler<K>> = this.#handlers[type];
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Called after the stream comes back from being offline: events may have been missed. */
  onResync(listener: () => void): () => void {
    this.#resyncListeners.add(listener);
    return () => this.#resyncListeners.delete(listener);
  }

  get status(): LiveStatus {
    return this.#status;
  }

  subscribeStatus = (listener: () => void): (() => void) => {
    this.#statusListeners.add(listener);
    return () => this.#statusListeners.delete(listener);
  };

  /** Delivers one event as if it had come from the server (used by tests and by the stream itself). */
  dispatch<K extends EventType>(type: K, data: EventData<K>): void {
    const handlers: Set<Handler<K>> = this.#handlers[type];
    for (const handler of handlers) {
      try {
        handler(data);
      } catch (error) {
        console.error(`llmgw: handling ${type} failed`, error);
      }
    }
  }

  #open(): void {
    this.#close();
    const url = this.#lastEventId === null ? this.url : `${this.url}?lastEventId=${this.#lastEventId}`;
    const source = new EventSource(url, { withCredentials: true });
    this.#source = source;
    source.onopen = () => {
      this.#retries = 0;
      this.#setStatus("online");
      if (this.#wasOffline) {
        this.#wasOffline = false;
        for (const listener of this.#resyncListeners) listener();
      }
    };
    source.onerror = () => {
      this.#wasOffline = true;
      this.#setStatus("offline");
      // CONNECTING means the browser is already retrying; CLOSED means it gave up for good.
      if (source.readyState === EventSource.CLOSED) this.#retryLater();
    };
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (message: MessageEvent<string>) => {
        if (message.lastEventId) this.#lastEventId = message.lastEventId;
        // EventSource keeps the last id for frames without one (ephemeral events): not theirs.
        const event = liveEventOf({ id: null, event: type, data: message.data });
        if (event !== null) this.dispatch(event.type, event.data);
      });
    }
  }

  #retryLater(): void {
    if (this.#retryTimer !== null) return;
    const delay = RETRY_MS[Math.min(this.#retries, RETRY_MS.length - 1)] ?? 10000;
    this.#retries += 1;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      this.#open();
    }, delay);
  }

  #close(): void {
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    this.#source?.close();
    this.#source = null;
  }

  #setStatus(status: LiveStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    for (const listener of this.#statusListeners) listener();
  }
}

/** The app's stream. One per page: every feature subscribes to this one. */
export const live = new LiveStream();

export function useLiveStatus(stream: LiveStream = live): LiveStatus {
  return useSyncExternalStore(stream.subscribeStatus, () => stream.status);
}

/**
 * Runs `fn` at most once per `ms`, trailing: a burst of fleet events becomes one refetch shortly
 * after the first, and one more after the burst if it kept going.
 */
export function atMostEvery(ms: number, fn: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let last = 0;
  return () => {
    if (timer !== null) return;
    const wait = Math.max(0, last + ms - Date.now());
    timer = setTimeout(() => {
      timer = null;
      last = Date.now();
      fn();
    }, wait);
  };
}

import type { MirrorEntry, ModelTraffic, ModelView, NodeView, QuotaUsage, Replica } from "@llmgw/domain";
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
 */

export type LiveEvents = {
  "model.changed": ModelView;
  "model.removed": { name: string };
  "node.changed": NodeView;
  "node.removed": { name: string };
  "replica.changed": Replica & { removed?: boolean };
  "mirror.changed": MirrorEntry | { model: string; version: string; removed: true };
  "quota.changed": QuotaUsage;
  /** Every second a model has traffic through the gateway; no event id, not replayed (SPEC §7.7). */
  "model.traffic": ModelTraffic;
};
export type LiveEventType = keyof LiveEvents;
const EVENT_TYPES: LiveEventType[] = [
  "model.changed",
  "model.removed",
  "node.changed",
  "node.removed",
  "replica.changed",
  "mirror.changed",
  "quota.changed",
  "model.traffic",
];

export type LiveStatus = "connecting" | "online" | "offline";

type Handler<K extends LiveEventType> = (data: LiveEvents[K]) => void;

const RETRY_MS = [1000, 2000, 5000, 10000];

export class LiveStream {
  #source: EventSource | null = null;
  #status: LiveStatus = "connecting";
  #lastEventId: string | null = null;
  #wasOffline = false;
  #retries = 0;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  readonly #handlers = new Map<LiveEventType, Set<(data: never) => void>>();
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

  on<K extends LiveEventType>(type: K, handler: Handler<K>): () => void {
    let set = this.#handlers.get(type);
    if (!set) {
      set = new Set();
      this.#handlers.set(type, set);
    }
    const stored = handler as (data: never) => void;
    set.add(stored);
    return () => set.delete(stored);
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
  dispatch<K extends LiveEventType>(type: K, data: LiveEvents[K]): void {
    for (const handler of this.#handlers.get(type) ?? []) {
      try {
        (handler as Handler<K>)(data);
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
      source.addEventListener(type, (event) => {
        const message = event as MessageEvent<string>;
        if (message.lastEventId) this.#lastEventId = message.lastEventId;
        let data: unknown;
        try {
          data = JSON.parse(message.data);
        } catch {
          return;
        }
        this.dispatch(type, data as LiveEvents[typeof type]);
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

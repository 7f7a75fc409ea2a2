import type { TrafficHistory } from "@llmgw/contract";
import type { ModelTraffic } from "@llmgw/domain";
import { useCallback, useSyncExternalStore } from "react";
import { KeyedListeners } from "./keyedListeners";
import type { LiveStream } from "./live";

/**
 * The gateway's live traffic per model, for the cards' charts: the last few minutes of requests/s
 * at one-second resolution, and the latest numbers (in flight, queued, first byte).
 *
 * Kept here rather than in the query cache: it is not the server's state (the server stores none
 * of it and a reconnect replays none), it changes every second for every busy model, and each card
 * subscribes to its own model only, so one event renders one card whatever the list around it.
 *
 * Time is the browser's, in whole seconds. The server sends an event every second a model has
 * traffic, so a second without one counts 0 req/s. The minutes before the page opened come from
 * the server's history (`seed`), which fills only the seconds no event filled. Its ticks and ours drift: two events landing in
 * one of our seconds right after a second with none are one late tick, not a burst and a gap, and
 * the earlier of the two fills the gap.
 */

/** How many seconds a card's chart covers. */
export const TRAFFIC_WINDOW_SECONDS = 300;
/** Without an event for this long, nothing is in flight or queued any more (the server sends every second). */
export const TRAFFIC_STALE_MS = 2500;

/** A model's history as the page received it: `receivedAt` (this clock, ms) places the server's seconds. */
export type ReceivedHistory = TrafficHistory & { receivedAt: number };

export type TrafficSnapshot = {
  model: string;
  /** The second (Unix time) of `perSecond[0]`; the last entry is the newest second. */
  from: number;
  /** Requests per second, oldest first, TRAFFIC_WINDOW_SECONDS of them; 0 for a second with no event. */
  perSecond: readonly number[];
  /** The latest event while the model has traffic; null once it has been quiet TRAFFIC_STALE_MS. */
  current: ModelTraffic | null;
  /**
   * Prompt tokens heard of (from seconds whose engines reported their cache) and of them cached,
   * since the model's traffic was first heard of here: the card's cache hit ratio (SPEC §7.1a).
   */
  prompt?: PromptCacheSums;
};

export type PromptCacheSums = { tokens: number; cached: number };

/** The share of prompt tokens found cached, or null when no engine reported any. */
export function cacheHitRatio(sums: PromptCacheSums | undefined): number | null {
  return sums && sums.tokens > 0 ? sums.cached / sums.tokens : null;
}

type Entry = {
  snapshot: TrafficSnapshot;
  /** Which of `perSecond` had an event (a drifted tick may fill one that had none). */
  heard: readonly boolean[];
  lastEventAt: number;
};

export class TrafficStore {
  /** Since when (this clock, ms) the page has heard the event stream: what it knows without the server's history. */
  listeningSince: number;
  readonly #entries = new Map<string, Entry>();
  readonly #listeners = new KeyedListeners();
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly clock: () => number = Date.now) {
    this.listeningSince = clock();
  }

  /** The model's traffic, or null when it has had none in the window. Same object until it changes. */
  get(model: string): TrafficSnapshot | null {
    return this.#entries.get(model)?.snapshot ?? null;
  }

  subscribe(model: string, listener: () => void): () => void {
    return this.#listeners.subscribe(model, listener);
  }

  /** One `model.traffic` event, as it arrives. */
  record(event: ModelTraffic): void {
    const now = this.clock();
    const second = Math.floor(now / 1000);
    const held = this.#entries.get(event.model);
    const { perSecond, heard, from } = advance(held ?? emptyEntry(event.model, second), second);
    const last = perSecond.length - 1;
    if (heard[last] && !heard[last - 1]) {
      perSecond[last - 1] = perSecond[last] ?? 0;
      heard[last - 1] = true;
    }
    perSecond[perSecond.length - 1] = event.requestsPerSecond;
    heard[heard.length - 1] = true;
    const heardPrompt = held?.snapshot.prompt ?? { tokens: 0, cached: 0 };
    const promptTokens = event.promptTokensPerSecond ?? 0;
    const prompt = {
      tokens: heardPrompt.tokens + promptTokens,
      cached: heardPrompt.cached + promptTokens * (event.cachedPromptRatio ?? 0),
    };
    this.#entries.set(event.model, {
      snapshot: { model: event.model, from, perSecond, current: event, prompt },
      heard,
      lastEventAt: now,
    });
    this.#notify(event.model);
    this.#startTicking();
  }

  /**
   * Moves every model's window to the last whole second and ends stale numbers, so a chart keeps
   * scrolling after traffic stops; a model quiet for the whole window is forgotten. A model that
   * had its event this second is left alone: its event already rendered its card.
   */
  tick(): void {
    const now = this.clock();
    const closed = Math.floor(now / 1000) - 1;
    for (const [model, entry] of this.#entries) {
      const { snapshot } = entry;
      const end = snapshot.from + snapshot.perSecond.length - 1;
      const stale = snapshot.current !== null && now - entry.lastEventAt >= TRAFFIC_STALE_MS;
      if (end >= closed && !stale) continue;
      const { perSecond, heard, from } = advance(entry, Math.max(end, closed));
      const current = stale ? null : snapshot.current;
      if (current === null && perSecond.every((n) => n === 0)) {
        this.#entries.delete(model);
      } else {
        this.#entries.set(model, {
          ...entry,
          snapshot: {
            model,
            from,
            perSecond,
            current,
            ...(snapshot.prompt ? { prompt: snapshot.prompt } : {}),
          },
          heard,
        });
      }
      this.#notify(model);
    }
    if (this.#entries.size === 0) this.stop();
  }

  /**
   * The server's last minutes of the model's traffic (`GET /models/:name/traffic`), laid into the
   * window where no event already is. The server's `now` at `receivedAt` lines its seconds up with
   * this clock whatever the two clocks say. Its latest second is the current numbers only when it
   * is the server's last second or the one before and no event has come yet.
   */
  seed(history: ReceivedHistory): void {
    const now = this.clock();
    const second = Math.floor(now / 1000);
    const shift = Math.floor(history.receivedAt / 1000) - history.now;
    const { model } = history;
    const held = this.#entries.get(model);
    const { perSecond, heard, from } = advance(held ?? emptyEntry(model, second), second);
    let filled = false;
    for (const { at, requestsPerSecond } of history.seconds) {
      const i = at + shift - from;
      if (i < 0 || i >= perSecond.length || heard[i]) continue;
      perSecond[i] = requestsPerSecond;
      heard[i] = true;
      filled = true;
    }
    const latest = history.seconds.at(-1);
    // When the latest second ended, on this clock: its numbers are current as an event's would be.
    const latestAt = latest === undefined ? 0 : (latest.at + shift + 1) * 1000;
    const live = held?.snapshot.current ?? null;
    const current =
      live ??
      (latest !== undefined && now - latestAt < TRAFFIC_STALE_MS ? { model, ...withoutAt(latest) } : null);
    if (!filled && current === live) return;
    if (current === null && perSecond.every((n) => n === 0)) return;
    this.#entries.set(model, {
      snapshot: { model, from, perSecond, current },
      heard,
      lastEventAt: live === null ? latestAt : (held?.lastEventAt ?? 0),
    });
    this.#notify(model);
    this.#startTicking();
  }

  /** Stops the once-a-second tick (it starts again with the next event). */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  #startTicking(): void {
    if (this.#timer === null) this.#timer = setInterval(() => this.tick(), 1000);
  }

  #notify(model: string): void {
    this.#listeners.notify(model);
  }
}

const withoutAt = <T extends { at: number }>({ at: _, ...figures }: T): Omit<T, "at"> => figures;

function emptyEntry(model: string, second: number): Entry {
  return {
    snapshot: {
      model,
      from: second - TRAFFIC_WINDOW_SECONDS + 1,
      perSecond: Array.from({ length: TRAFFIC_WINDOW_SECONDS }, () => 0),
      current: null,
      prompt: { tokens: 0, cached: 0 },
    },
    heard: Array.from({ length: TRAFFIC_WINDOW_SECONDS }, () => false),
    lastEventAt: 0,
  };
}

/** Copies of the entry's window moved on to end at `second`, the seconds in between counted as 0. */
function advance(entry: Entry, second: number): { perSecond: number[]; heard: boolean[]; from: number } {
  const { from, perSecond: held } = entry.snapshot;
  const moved = Math.min(TRAFFIC_WINDOW_SECONDS, Math.max(0, second - (from + held.length - 1)));
  return {
    perSecond: [...held.slice(moved), ...Array.from({ length: moved }, () => 0)],
    heard: [...entry.heard.slice(moved), ...Array.from({ length: moved }, () => false)],
    from: Math.max(from, second - TRAFFIC_WINDOW_SECONDS + 1),
  };
}

/** Feeds a store from the event stream. */
export function followTraffic(store: TrafficStore, stream: LiveStream): () => void {
  store.listeningSince = Date.now();
  const off = stream.on("model.traffic", (event) => store.record(event));
  return () => {
    off();
    store.stop();
  };
}

/** The page's traffic, fed by the page's one stream (see app/provider). */
export const traffic = new TrafficStore();

/** One model's traffic; renders again only when that model's changes. */
export function useModelTraffic(model: string, store: TrafficStore = traffic): TrafficSnapshot | null {
  const subscribe = useCallback((listener: () => void) => store.subscribe(model, listener), [store, model]);
  return useSyncExternalStore(subscribe, () => store.get(model));
}

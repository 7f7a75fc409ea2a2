import { type ModelSummary, replicasWanted } from "@llmgw/domain";
import { useCallback, useSyncExternalStore } from "react";
import { KeyedListeners } from "./keyedListeners";
import { TRAFFIC_WINDOW_SECONDS } from "./traffic";

/**
 * Each autoscaled model's replicas over the last minutes (SPEC §9.5: the card's chart of requests
 * and replicas on one time axis): when the running and wanted counts changed, as this page saw
 * them (the models' events), kept for the traffic chart's window. Like the traffic, it is not the
 * server's state, so it lives beside the query cache, and a card subscribes to its model alone.
 */

export type ScalePoint = { at: number; running: number; wanted: number };

export class ScalingStore {
  readonly #points = new Map<string, readonly ScalePoint[]>();
  readonly #listeners = new KeyedListeners();

  constructor(private readonly clock: () => number = Date.now) {}

  /** The model's changes in the window, oldest first; the same array until it changes. */
  get(model: string): readonly ScalePoint[] | null {
    return this.#points.get(model) ?? null;
  }

  /** The counts as they are now; nothing is kept when they have not changed. */
  note(model: string, running: number, wanted: number): void {
    const held = this.#points.get(model) ?? [];
    const last = held.at(-1);
    if (last && last.running === running && last.wanted === wanted) return;
    const at = this.clock();
    const from = at - TRAFFIC_WINDOW_SECONDS * 1000;
    // The last change before the window still says what the window starts with.
    const firstIn = held.findIndex((p) => p.at >= from);
    const kept = firstIn < 0 ? held.slice(-1) : held.slice(Math.max(0, firstIn - 1));
    this.#points.set(model, [...kept, { at, running, wanted }]);
    this.#listeners.notify(model);
  }

  forget(model: string): void {
    this.#points.delete(model);
  }

  subscribe(model: string, listener: () => void): () => void {
    return this.#listeners.subscribe(model, listener);
  }
}

/** What a model's card counts: replicas ready (draining ones still run), and wanted. */
export function noteModel(store: ScalingStore, model: ModelSummary): void {
  if (model.autoscale === null) return;
  const running = model.replicas.filter((r) => r.state === "ready").length;
  store.note(model.name, running, replicasWanted(model));
}

/**
 * Per second from `from` (Unix seconds), `seconds` of them: the counts in force at the end of
 * each second, null before the first change the page saw.
 */
export function scaleSeries(
  points: readonly ScalePoint[],
  from: number,
  seconds: number,
): { running: (number | null)[]; wanted: (number | null)[] } {
  const running: (number | null)[] = [];
  const wanted: (number | null)[] = [];
  let next = 0;
  let current: ScalePoint | null = null;
  for (let i = 0; i < seconds; i++) {
    const end = (from + i + 1) * 1000;
    while (next < points.length && (points[next]?.at ?? Number.POSITIVE_INFINITY) < end) {
      current = points[next] ?? current;
      next++;
    }
    running.push(current?.running ?? null);
    wanted.push(current?.wanted ?? null);
  }
  return { running, wanted };
}

/** The page's store, fed by the models' events (features/models/live.ts). */
export const scaling = new ScalingStore();

export function useModelScaling(model: string, store: ScalingStore = scaling): readonly ScalePoint[] | null {
  const subscribe = useCallback((listener: () => void) => store.subscribe(model, listener), [store, model]);
  return useSyncExternalStore(subscribe, () => store.get(model));
}

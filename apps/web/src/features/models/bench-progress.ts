import type { BenchProgressEvent } from "@llmgw/domain";
import { useCallback, useSyncExternalStore } from "react";
import type { LiveStream } from "../../lib/live";

/**
 * Each model's running bench, as its `model.bench` events say (ephemeral: a page opened mid-run
 * sees the next one). Kept apart from the catalogue's query so a progress tick renders the one
 * card's bar and nothing else; the result itself arrives on the model, with `model.changed`.
 */
export class BenchProgressStore {
  readonly #latest = new Map<string, BenchProgressEvent>();
  readonly #listeners = new Map<string, Set<() => void>>();

  record(event: BenchProgressEvent): void {
    this.#latest.set(event.model, event);
    for (const listener of this.#listeners.get(event.model) ?? []) listener();
  }

  get(model: string): BenchProgressEvent | null {
    return this.#latest.get(model) ?? null;
  }

  subscribe(model: string, listener: () => void): () => void {
    const set = this.#listeners.get(model) ?? new Set();
    set.add(listener);
    this.#listeners.set(model, set);
    return () => set.delete(listener);
  }
}

export const benchProgress = new BenchProgressStore();

export function followBenchProgress(
  stream: LiveStream,
  store: BenchProgressStore = benchProgress,
): () => void {
  return stream.on("model.bench", (event) => store.record(event));
}

/** One model's bench progress; renders again only when that model's changes. */
export function useBenchProgress(model: string, store: BenchProgressStore = benchProgress) {
  const subscribe = useCallback((listener: () => void) => store.subscribe(model, listener), [store, model]);
  return useSyncExternalStore(subscribe, () => store.get(model));
}

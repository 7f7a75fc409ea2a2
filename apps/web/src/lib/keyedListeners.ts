/**
 * Listeners by key (a model's name): a card subscribes to its own model, and a change to one model
 * wakes only its cards. Shared by the page-side stores that live beside the query cache (traffic,
 * scaling).
 */
export class KeyedListeners {
  readonly #byKey = new Map<string, Set<() => void>>();

  subscribe(key: string, listener: () => void): () => void {
    let set = this.#byKey.get(key);
    if (!set) {
      set = new Set();
      this.#byKey.set(key, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#byKey.delete(key);
    };
  }

  notify(key: string): void {
    for (const listener of this.#byKey.get(key) ?? []) listener();
  }
}

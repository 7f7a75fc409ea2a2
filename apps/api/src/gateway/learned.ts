/** At most this many block keys are remembered per model in one process (a few MB at most). */
export const MAX_LEARNED_BLOCKS = 200_000;

/**
 * Where each beginning went (SPEC §7.1a: "the replica that served the longest matching beginning
 * recently"): block key → replica id, least recently used out first. One per model, per process;
 * every process learns the same from the same deterministic first choices, so none shares it.
 */
export class LearnedBeginnings {
  readonly #where = new Map<number, string>();

  constructor(private readonly max = MAX_LEARNED_BLOCKS) {}

  get size(): number {
    return this.#where.size;
  }

  /**
   * The longest run of `blocks` from the first whose last block was sent to a replica `isCandidate`
   * accepts: that replica and how many blocks matched. A chain key stands for its whole prefix, so
   * the walk goes from the longest down and stops at the first known one.
   */
  longest(
    blocks: readonly number[],
    isCandidate: (id: string) => boolean,
  ): { id: string; blocks: number } | null {
    for (let i = blocks.length - 1; i >= 0; i--) {
      const id = this.#where.get(blocks[i] as number);
      if (id !== undefined && isCandidate(id)) return { id, blocks: i + 1 };
    }
    return null;
  }

  /** `blocks` went to replica `id`: each key now points there, as the most recently used. */
  sent(blocks: readonly number[], id: string): void {
    for (const key of blocks) {
      this.#where.delete(key);
      this.#where.set(key, id);
    }
    let over = this.#where.size - this.max;
    if (over <= 0) return;
    for (const key of this.#where.keys()) {
      this.#where.delete(key);
      if (--over === 0) break;
    }
  }
}

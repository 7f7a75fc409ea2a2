import { compareText } from "@llmgw/domain";
import { type WeightedCandidate, weightedScore } from "./choose";

// Where each prompt beginning lives (SPEC §7.1a: "a deterministic choice over the model's ready
// replicas keyed on the prompt's first message"), balanced. Rendezvous hashing alone spreads many
// keys evenly but few keys badly: 12 tenants over 4 replicas put 5 on one about as often as 3,
// and that replica's prompt cache then holds too little of each. A process balances by load as it
// places, but two processes behind a balancer see different loads and place differently, and each
// replica then caches the prompts of both placements. So while a model has few live beginnings,
// each goes to its highest-ranked replica that has fewer than its share of them, the beginnings
// taken in the order of their keys: the same set of keys and replicas gives the same homes in
// every process, whatever order the requests came in. With many live keys, rendezvous is even by
// the law of large numbers and each key's home is its top replica.

/** Up to this many live beginnings per model are balanced; past it, plain rendezvous. */
export const BALANCED_KEYS = 256;
/** A beginning not seen for this long no longer counts among the live ones. */
export const LIVE_MS = 10 * 60_000;

type Replica = Pick<WeightedCandidate, "id" | "weight" | "idHash">;

export class BeginningHomes {
  /** Live first keys and when each was last seen (ms), least recently seen first. */
  readonly #seen = new Map<number, number>();
  #homes: Map<number, string> | null = null;
  #replicas: readonly Replica[] | null = null;

  /**
   * The home of `key` among `replicas` (the model's ready replicas, the same list object while
   * the snapshot stands), or null when the model has too many live keys to balance: then the
   * top of weighted rendezvous is the home.
   */
  home(key: number, replicas: readonly Replica[], now: number): string | null {
    const known = this.#seen.has(key);
    this.#seen.delete(key);
    this.#seen.set(key, now);
    let changed = !known || replicas !== this.#replicas;
    // The least recently seen first: those gone quiet leave the set.
    for (const [old, at] of this.#seen) {
      if (now - at <= LIVE_MS) break;
      this.#seen.delete(old);
      changed = true;
    }
    if (this.#seen.size > BALANCED_KEYS) {
      // Too many to balance: forget the oldest past a bound (the set only says "many").
      for (const old of this.#seen.keys()) {
        if (this.#seen.size <= 2 * BALANCED_KEYS) break;
        this.#seen.delete(old);
      }
      this.#homes = null;
      this.#replicas = replicas;
      return null;
    }
    if (changed || this.#homes === null) {
      this.#homes = balancedHomes([...this.#seen.keys()], replicas);
      this.#replicas = replicas;
    }
    return this.#homes.get(key) ?? null;
  }
}

/**
 * Each key's home: keys in ascending order, each to its highest-ranked replica (weighted
 * rendezvous) still under its share, `ceil(keys × weight / total weight)`. Depends only on the
 * set of keys and replicas, never on their order.
 */
export function balancedHomes(keys: readonly number[], replicas: readonly Replica[]): Map<number, string> {
  const homes = new Map<number, string>();
  const open = replicas.filter((r) => r.weight > 0);
  if (open.length === 0) return homes;
  const totalWeight = open.reduce((sum, r) => sum + r.weight, 0);
  const sorted = [...keys].sort((a, b) => a - b);
  const share = new Map(open.map((r) => [r.id, Math.ceil((sorted.length * r.weight) / totalWeight)]));
  const held = new Map<string, number>();
  for (const key of sorted) {
    let best: Replica | null = null;
    let bestScore = -1;
    for (const r of open) {
      if ((held.get(r.id) ?? 0) >= (share.get(r.id) ?? 0)) continue;
      const score = weightedScore(key, r);
      if (score > bestScore || (score === bestScore && best !== null && compareText(r.id, best.id) < 0)) {
        best = r;
        bestScore = score;
      }
    }
    if (!best) continue;
    homes.set(key, best.id);
    held.set(best.id, (held.get(best.id) ?? 0) + 1);
  }
  return homes;
}

import { createHash } from "node:crypto";
import { compareText } from "@llmgw/domain";

/** A ready replica as the choice sees it: how busy it is from this process, and how much it takes. */
export type Candidate = { id: string; inFlight: number; slots: number };

/**
 * Which replica takes the next request (SPEC §7.1), or null when every one is full (at its slots).
 * With a session key: rendezvous hashing picks the same replica for the same key while the set of
 * replicas stands (so the engine's prompt cache stays warm), unless that replica is full or has
 * more than twice the average in flight (this request counted, rounded up); then the next in the
 * key's order. Without a key: the fewest in flight, ties taken in turn by `turn` (a counter the
 * caller moves on). `scores` gives a candidate's score for the key (a cache of `rendezvousScore`).
 */
export function chooseReplica(
  candidates: readonly Candidate[],
  sessionKey: string | null,
  turn: number,
  scores: (id: string) => number = (id) => rendezvousScore(sessionKey ?? "", id),
): Candidate | null {
  if (candidates.length === 1) {
    const only = candidates[0] as Candidate;
    return only.inFlight < only.slots ? only : null;
  }
  const free = candidates.filter((c) => c.inFlight < c.slots);
  if (free.length === 0) return null;
  if (sessionKey !== null) {
    // Bounded-load hashing (Mirrokni et al.): a replica may hold at most twice the average load,
    // counting the request being placed and rounding up, so one extra request never breaks affinity.
    const total = candidates.reduce((sum, c) => sum + c.inFlight, 0);
    const bound = Math.ceil((2 * (total + 1)) / candidates.length);
    // Each score once, not once per comparison.
    const ranked = free.map((c) => ({ c, score: scores(c.id) })).sort((a, b) => b.score - a.score);
    const sticky = ranked.find(({ c }) => c.inFlight + 1 <= bound);
    if (sticky) return sticky.c;
  }
  let least = Number.POSITIVE_INFINITY;
  for (const c of free) if (c.inFlight < least) least = c.inFlight;
  const tied = free.filter((c) => c.inFlight === least).sort((a, b) => compareText(a.id, b.id));
  return tied[turn % tied.length] ?? null;
}

/** Highest random weight: a stable score per (key, replica); the highest wins. */
export function rendezvousScore(key: string, replicaId: string): number {
  return createHash("sha256").update(key).update("\0").update(replicaId).digest().readUInt32BE(0);
}

/** At most this many keys' scores are kept per model and snapshot; past it, they start afresh. */
const MAX_KEYS = 4096;

/**
 * Rendezvous scores per session key, for one model's replicas in one snapshot: a session's
 * requests hash its key against each replica once, not on every request.
 */
export class SessionScores {
  readonly #byKey = new Map<string, Map<string, number>>();

  of(key: string): (id: string) => number {
    let scores = this.#byKey.get(key);
    if (!scores) {
      if (this.#byKey.size >= MAX_KEYS) this.#byKey.clear();
      scores = new Map();
      this.#byKey.set(key, scores);
    }
    const known = scores;
    return (id) => {
      let score = known.get(id);
      if (score === undefined) {
        score = rendezvousScore(key, id);
        known.set(id, score);
      }
      return score;
    };
  }
}

/** An unseen beginning goes to a replica at most this many times the average load (rounded up). */
const UNSEEN_LOAD_FACTOR = 1;

/** A candidate with what the cache-aware choice needs: its profile's weight and its id's hash. */
export type WeightedCandidate = Candidate & { weight: number; idHash: number };

/** The replica that served a prompt's longest matching beginning, and whether the match covers the first key. */
export type Holder = { id: string; keyed: boolean };

/**
 * Which replica takes a request without a session key (SPEC §7.1a), or null when it should wait.
 * The replicas are ranked by weighted rendezvous on the first message's key: deterministic over
 * the ready replicas, so every process ranks them alike, and a profile with twice the weight comes
 * first for twice the beginnings. The first of that order is the beginning's home.
 *
 * `holder` is the replica that served the longest matching beginning, when the match counts. One
 * whose match covers the first key (`keyed`: it was chosen for this same key) but is not the home
 * was chosen by this process's own load, which another process does not see. With `converge` (another
 * process routes this model too), while the home has a free slot the home takes the request instead,
 * so processes that share no state converge on one replica a tenant (a shorter match says nothing of
 * home: the key was another when it was chosen). A process alone keeps the holder: it sees all the
 * load, and homes are uneven (the prefix bench's 12 tenants fall 5/3/2/2 on 4 replicas), so going home
 * would trade its even spread for queues and evictions on the busiest home.
 * Otherwise the holder is waited for while it is full but not far ahead of the rest: reading the
 * prompt again elsewhere costs more. It is passed over when its requests (this one counted, as one
 * waiting for it) are more than its slots and more than twice the average of the others.
 *
 * Then, or with no holder, no replica holds the prompt and none is worth waiting for: with
 * `converge`, home while it has a free slot (where the other process sends it too); else the first
 * in rendezvous order with a free slot and no more than the average load.
 */
export function chooseByBeginning(
  candidates: readonly WeightedCandidate[],
  holder: Holder | null,
  firstKey: number,
  converge: boolean,
): WeightedCandidate | null {
  // Each score once, not once per comparison.
  const ranked = candidates
    .map((c) => ({ c, score: weightedScore(firstKey, c) }))
    .sort((a, b) => b.score - a.score || compareText(a.c.id, b.c.id))
    .map(({ c }) => c);
  const home = ranked[0];
  const held = holder === null ? undefined : candidates.find((c) => c.id === holder.id);
  // Where another process would send it: home, for an unseen beginning as for one held elsewhere.
  const away = held === undefined || (holder?.keyed === true && held !== home);
  if (converge && away && home && home.inFlight < home.slots) return home;
  const total = candidates.reduce((sum, c) => sum + c.inFlight, 0);
  if (held) {
    const others = candidates.length > 1 ? (total - held.inFlight) / (candidates.length - 1) : 0;
    const load = held.inFlight + 1;
    if (!(load > held.slots && load > 2 * others)) return held.inFlight < held.slots ? held : null;
  }
  const free = ranked.filter((c) => c !== held && c.inFlight < c.slots);
  // A tighter bound than a session's: where an unseen beginning goes, its tenant's next requests
  // follow, so the first placements decide how evenly the prompts end up spread.
  const bound = Math.ceil((UNSEEN_LOAD_FACTOR * (total + 1)) / candidates.length);
  const within = free.find((c) => c.inFlight + 1 <= bound);
  if (within) return within;
  return free.reduce<WeightedCandidate | null>(
    (least, c) => (least && least.inFlight <= c.inFlight ? least : c),
    null,
  );
}

/** Weighted rendezvous (Schindelhauer and Schomaker): weight / −ln(u), u uniform from the pair's hash. */
function weightedScore(key: number, c: WeightedCandidate): number {
  if (c.weight <= 0) return 0;
  const u = (mix32(key ^ Math.imul(c.idHash, 0x9e3779b1)) + 0.5) / 0x100000000;
  return c.weight / -Math.log(u);
}

/** murmur3's finaliser: every input bit moves every output bit. */
function mix32(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

import { createHash } from "node:crypto";

/** A ready replica as the choice sees it: how busy it is from this process, and how much it takes. */
export type Candidate = { id: string; inFlight: number; slots: number };

/**
 * Which replica takes the next request (SPEC §7.1), or null when every one is full (at its slots).
 * With a session key: rendezvous hashing picks the same replica for the same key while the set of
 * replicas stands (so the engine's prompt cache stays warm), unless that replica is full or has
 * more than twice the average in flight (this request counted, rounded up); then the next in the
 * key's order. Without a key: the fewest in flight, ties taken in turn by `turn` (a counter the
 * caller moves on).
 */
export function chooseReplica(
  candidates: readonly Candidate[],
  sessionKey: string | null,
  turn: number,
): Candidate | null {
  const free = candidates.filter((c) => c.inFlight < c.slots);
  if (free.length === 0) return null;
  if (sessionKey !== null) {
    // Bounded-load hashing (Mirrokni et al.): a replica may hold at most twice the average load,
    // counting the request being placed and rounding up, so one extra request never breaks affinity.
    const total = candidates.reduce((sum, c) => sum + c.inFlight, 0);
    const bound = Math.ceil((2 * (total + 1)) / candidates.length);
    const ranked = [...free].sort(
      (a, b) => rendezvousScore(sessionKey, b.id) - rendezvousScore(sessionKey, a.id),
    );
    const sticky = ranked.find((c) => c.inFlight + 1 <= bound);
    if (sticky) return sticky;
  }
  const least = Math.min(...free.map((c) => c.inFlight));
  const tied = free.filter((c) => c.inFlight === least).sort((a, b) => (a.id < b.id ? -1 : 1));
  return tied[turn % tied.length] ?? null;
}

/** Highest random weight: a stable score per (key, replica); the highest wins. */
export function rendezvousScore(key: string, replicaId: string): number {
  return createHash("sha256").update(key).update("\0").update(replicaId).digest().readUInt32BE(0);
}

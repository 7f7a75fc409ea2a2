import { describe, expect, it } from "vitest";
import { BALANCED_KEYS, BeginningHomes, balancedHomes, LIVE_MS } from "../src/gateway/homes";

// SPEC §7.1a: a beginning's home is deterministic over the ready replicas, so processes behind a
// balancer agree without sharing state, and balanced while the model has few live beginnings.

const replicas = (weights: number[]) =>
  weights.map((weight, i) => ({ id: `r${i}`, weight, idHash: i * 7919 + 1 }));
const keysOf = (n: number, seed = 1) =>
  Array.from({ length: n }, (_, i) => (Math.imul(i + seed, 2654435761) >>> 0) * 0x100 + i);
const counts = (homes: Map<number, string>) => {
  const by: Record<string, number> = {};
  for (const id of homes.values()) by[id] = (by[id] ?? 0) + 1;
  return by;
};

describe("balancedHomes", () => {
  it("gives 12 tenants over 4 replicas 3 each, where rendezvous alone would not", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const homes = balancedHomes(keysOf(12, seed * 97), replicas([1, 1, 1, 1]));
      expect(homes.size).toBe(12);
      expect(Object.values(counts(homes))).toEqual([3, 3, 3, 3]);
    }
  });

  it("depends on the set of keys and replicas, not on their order", () => {
    const keys = keysOf(40);
    const list = replicas([1, 2, 1, 1, 3]);
    const homes = balancedHomes(keys, list);
    expect(balancedHomes([...keys].reverse(), [...list].reverse())).toEqual(homes);
  });

  it("shares by weight, and gives a replica of weight 0 nothing", () => {
    const homes = counts(balancedHomes(keysOf(60), replicas([2, 1, 0, 1])));
    expect(homes).toEqual({ r0: 30, r1: 15, r3: 15 });
  });

  it("moves few homes when one beginning joins", () => {
    const keys = keysOf(24);
    const before = balancedHomes(keys, replicas([1, 1, 1, 1]));
    const after = balancedHomes([...keys, 123456789], replicas([1, 1, 1, 1]));
    const moved = keys.filter((k) => before.get(k) !== after.get(k)).length;
    expect(moved).toBeLessThanOrEqual(6);
  });
});

describe("BeginningHomes", () => {
  it("gives two processes that saw the same beginnings in different orders the same homes", () => {
    const list = replicas([1, 1, 1, 1]);
    const keys = keysOf(12);
    const a = new BeginningHomes();
    const b = new BeginningHomes();
    for (const k of keys) a.home(k, list, 0);
    for (const k of [...keys].reverse()) b.home(k, list, 0);
    for (const k of keys) expect(a.home(k, list, 1)).toBe(b.home(k, list, 1));
    expect(Object.values(counts(new Map(keys.map((k) => [k, a.home(k, list, 2) ?? ""]))))).toEqual([
      3, 3, 3, 3,
    ]);
  });

  it("forgets beginnings not seen for LIVE_MS, so the rest share the replicas again", () => {
    const list = replicas([1, 1]);
    // Three keys of which two share a replica while the third is live (shares of 2 each).
    const trio = Array.from({ length: 50 }, (_, seed) => keysOf(3, seed + 1)).find(([q, a, b]) => {
      const homes = balancedHomes([q as number, a as number, b as number], list);
      return homes.get(a as number) === homes.get(b as number);
    });
    if (!trio) throw new Error("no such keys");
    const [quiet, x, y] = trio as [number, number, number];
    const homes = new BeginningHomes();
    homes.home(quiet, list, 0);
    homes.home(x, list, LIVE_MS / 2);
    homes.home(y, list, LIVE_MS / 2);
    expect(homes.home(x, list, LIVE_MS / 2)).toBe(homes.home(y, list, LIVE_MS / 2));
    // With `quiet` gone, x and y are the live pair: one replica each.
    const later = LIVE_MS + 1;
    expect(homes.home(x, list, later)).not.toBe(homes.home(y, list, later));
  });

  it("leaves homes to rendezvous past BALANCED_KEYS live beginnings", () => {
    const list = replicas([1, 1, 1]);
    const homes = new BeginningHomes();
    const keys = keysOf(BALANCED_KEYS + 1);
    const answers = keys.map((k) => homes.home(k, list, 0));
    expect(answers.slice(0, BALANCED_KEYS).every((h) => h !== null)).toBe(true);
    expect(answers[BALANCED_KEYS]).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { BLOCK_BYTES, beginningOf, READ_BYTES } from "../src/gateway/beginning";
import { chooseByBeginning, type Holder, type WeightedCandidate } from "../src/gateway/choose";
import { LearnedBeginnings } from "../src/gateway/learned";
import { PEERS_WINDOW_SECONDS, Peers } from "../src/gateway/peers";

// The pure parts of SPEC §7.1a: how a prompt's beginning is read, remembered and chosen by.

const body = (messages: { role: string; content: string }[], extra: Record<string, unknown> = {}) =>
  new TextEncoder().encode(JSON.stringify({ model: "m", messages, ...extra }));
const text = (seed: string, bytes: number) => seed.repeat(Math.ceil(bytes / seed.length)).slice(0, bytes);

const candidates = (weights: number[], inFlight: number[] = weights.map(() => 0)): WeightedCandidate[] =>
  weights.map((weight, i) => ({
    id: `r${i}`,
    inFlight: inFlight[i] ?? 0,
    slots: 4,
    weight,
    idHash: i * 7919 + 1,
  }));

describe("beginningOf", () => {
  it("has none for a prompt shorter than one block, or a body without one", () => {
    expect(beginningOf(body([{ role: "user", content: "hi" }]))).toBeNull();
    expect(
      beginningOf(new TextEncoder().encode(JSON.stringify({ model: "m", input: text("x", 4000) }))),
    ).toBeNull();
  });

  it("gives a conversation's next turn the same first blocks as the turn before", () => {
    const system = { role: "system", content: text("tenant A knows about ", 6000) };
    const turn1 = beginningOf(body([system, { role: "user", content: "first question" }]));
    const turn2 = beginningOf(
      body([
        system,
        { role: "user", content: "first question" },
        { role: "assistant", content: "an answer" },
        { role: "user", content: "next" },
      ]),
    );
    if (!turn1 || !turn2) throw new Error("no beginning");
    expect(turn2.blocks.slice(0, turn1.blocks.length - 1)).toEqual(turn1.blocks.slice(0, -1));
    expect(turn2.firstKey).toBe(turn1.firstKey);
  });

  it("reads a prompt alike wherever its bytes lie: after other members, inside a larger buffer", () => {
    const messages = [{ role: "system", content: text("tenant B sells parts. ", 9000) }];
    const alone = beginningOf(body(messages));
    if (!alone) throw new Error("no beginning");
    const blocks = new Set<string>();
    for (let shift = 0; shift < 8; shift++) {
      // A longer model name moves the prompt by `shift` bytes; a buffer's offset moves it again.
      const bytes = body(messages, { model: "m".repeat(shift + 1) });
      const inside = new Uint8Array(bytes.byteLength + 3 + shift);
      inside.set(bytes, 3);
      const read = beginningOf(inside.subarray(3, 3 + bytes.byteLength));
      blocks.add(JSON.stringify(read));
    }
    expect([...blocks]).toEqual([JSON.stringify(alone)]);
  });

  it("reads at most the first 64 kB of the prompt, whatever follows", () => {
    const long = beginningOf(body([{ role: "user", content: text("y", READ_BYTES * 4) }]));
    expect(long?.blocks.length).toBe(READ_BYTES / BLOCK_BYTES);
  });

  it("keys a beginning on its first 4 kB, past a shorter first message many share", () => {
    const preamble = { role: "system", content: text("Be brief and polite. ", 2000) };
    const tenant = (n: number) => ({ role: "system", content: text(`tenant ${n} sells things. `, 9000) });
    const a = beginningOf(body([preamble, tenant(1)]));
    const b = beginningOf(body([preamble, tenant(2)]));
    expect(a?.firstKey).not.toBe(b?.firstKey);
  });

  it("hashes the same bytes alike wherever they lie in memory, and each block on its own", () => {
    const bytes = body([{ role: "user", content: text("alike wherever it lies ", 9000) }]);
    const at = beginningOf(bytes);
    // The same body at an odd offset in a larger buffer (as a chunk of a joined request can be).
    for (const offset of [1, 2, 3, 5]) {
      const shifted = new Uint8Array(bytes.byteLength + offset);
      shifted.set(bytes, offset);
      expect(beginningOf(shifted.subarray(offset))).toEqual(at);
    }
    // A change in the third block leaves the first two keys and changes every one after.
    const changed = body([
      { role: "user", content: `${text("alike wherever it lies ", 2100)}!${text("x", 6899)}` },
    ]);
    const other = beginningOf(changed);
    if (!at || !other) throw new Error("no beginning");
    expect(other.blocks.slice(0, 2)).toEqual(at.blocks.slice(0, 2));
    for (let i = 2; i < at.blocks.length; i++) expect(other.blocks[i]).not.toBe(at.blocks[i]);
    // A second, shorter prompt read after a long one sees nothing of the long one's bytes.
    const short = body([{ role: "user", content: text("short one ", 1500) }]);
    const first = beginningOf(short);
    beginningOf(bytes);
    expect(beginningOf(short)).toEqual(first);
  });

  it("reads `prompt` too, and keys it on its first 4 kB", () => {
    const a = beginningOf(
      new TextEncoder().encode(JSON.stringify({ model: "m", prompt: `${text("p", 4096)}one` })),
    );
    const b = beginningOf(
      new TextEncoder().encode(JSON.stringify({ model: "m", prompt: `${text("p", 4096)}two` })),
    );
    expect(a?.firstKey).toBe(b?.firstKey);
  });
});

describe("LearnedBeginnings", () => {
  it("finds the longest run that went to a replica still there", () => {
    const learned = new LearnedBeginnings();
    learned.sent([1, 2], "r0");
    learned.sent([1, 2, 3, 4], "r1");
    expect(learned.longest([1, 2, 3, 4, 5], () => true)).toEqual({ id: "r1", blocks: 4 });
    expect(learned.longest([1, 2, 3, 4, 5], (id) => id === "r0")).toBeNull();
  });

  it("forgets the least recently used first, past its bound", () => {
    const learned = new LearnedBeginnings(3);
    learned.sent([1, 2], "r0");
    learned.sent([3, 4], "r1");
    expect(learned.size).toBe(3);
    expect(learned.longest([1], () => true)).toBeNull();
    expect(learned.longest([2], () => true)?.id).toBe("r0");
  });
});

/** A holder whose match is shorter than the first key (`keyed` false) or covers it. */
const held = (id: string, keyed = false): Holder => ({ id, keyed });

/**
 * Four idle replicas, the home of the beginning `42` among them (first in rendezvous order, where
 * any process sends it) and another, and the same replicas with `n` requests on one of them.
 */
function fourAndHome() {
  const idle = candidates([1, 1, 1, 1]);
  const home = chooseByBeginning(idle, null, 42, true)?.id ?? "";
  const elsewhere = idle.find((c) => c.id !== home)?.id ?? "";
  const loaded = (id: string, n: number) => idle.map((c) => ({ ...c, inFlight: c.id === id ? n : 0 }));
  return { home, elsewhere, loaded };
}

describe("chooseByBeginning", () => {
  it("takes the holder of the prompt while it is not far busier than the rest", () => {
    expect(chooseByBeginning(candidates([1, 1, 1], [3, 0, 0]), held("r0"), 42, false)?.id).toBe("r0");
  });

  it("waits for a full holder when the others are about as busy", () => {
    expect(chooseByBeginning(candidates([1, 1], [4, 3]), held("r0"), 42, false)).toBeNull();
  });

  it("passes a full holder over once it has more than twice the others' average", () => {
    const chosen = chooseByBeginning(candidates([1, 1, 1], [4, 1, 0]), held("r0"), 42, false);
    expect(chosen?.id).not.toBe("r0");
  });

  it("sends a beginning home, past a holder this process chose by its own load, while home has room, when another process routes the model", () => {
    const { home, elsewhere, loaded } = fourAndHome();
    // Its holder was chosen for the same key (the match covers it) while home was full.
    const busy = loaded(home, 3);
    expect(chooseByBeginning(busy, held(elsewhere, true), 42, true)?.id).toBe(home);
    // A match short of the key says nothing of home: the holder keeps it.
    expect(chooseByBeginning(busy, held(elsewhere, false), 42, true)?.id).toBe(elsewhere);
    // A full home leaves it with its holder.
    const full = loaded(home, 4);
    expect(chooseByBeginning(full, held(elsewhere, true), 42, true)?.id).toBe(elsewhere);
  });

  it("keeps a beginning with the holder it chose by load when no other process routes the model", () => {
    const { home, elsewhere, loaded } = fourAndHome();
    // Home idle, the holder busier: a process alone still keeps the prompt where it is cached.
    const busy = loaded(elsewhere, 3);
    expect(chooseByBeginning(busy, held(elsewhere, true), 42, false)?.id).toBe(elsewhere);
    expect(chooseByBeginning(busy, held(elsewhere, true), 42, true)?.id).toBe(home);
  });

  it("sends an unseen beginning home while home has a free slot when another process routes the model", () => {
    const { home, loaded } = fourAndHome();
    // Home busier than the average but not full: where the other process would send it too.
    const busy = loaded(home, 3);
    expect(chooseByBeginning(busy, null, 42, true)?.id).toBe(home);
    // A process alone spreads it by load instead.
    expect(chooseByBeginning(busy, null, 42, false)?.id).not.toBe(home);
    // A full home: the next in order within the average load, alone or not.
    const full = loaded(home, 4);
    expect(chooseByBeginning(full, null, 42, true)?.id).toBe(chooseByBeginning(full, null, 42, false)?.id);
    expect(chooseByBeginning(full, null, 42, true)?.id).not.toBe(home);
  });

  it("sends an unseen beginning to the same replica every time, in any order of replicas", () => {
    const list = candidates([1, 1, 1, 1]);
    const first = chooseByBeginning(list, null, 12345, false)?.id;
    expect(chooseByBeginning([...list].reverse(), null, 12345, false)?.id).toBe(first);
  });

  it("moves only the beginnings of a replica that leaves", () => {
    const four = candidates([1, 1, 1, 1]);
    const three = four.filter((c) => c.id !== "r3");
    for (let key = 0; key < 500; key++) {
      const before = chooseByBeginning(four, null, key, false)?.id;
      if (before !== "r3") expect(chooseByBeginning(three, null, key, false)?.id).toBe(before);
    }
  });

  it("shares unseen beginnings between profiles by weight, within ±10% over 1,000", () => {
    const list = candidates([3, 3, 1, 1]);
    let heavy = 0;
    for (let key = 0; key < 1000; key++) {
      const id = chooseByBeginning(list, null, (key * 2654435761) >>> 0, false)?.id;
      if (id === "r0" || id === "r1") heavy++;
    }
    expect(heavy / 1000).toBeGreaterThan(0.75 - 0.1);
    expect(heavy / 1000).toBeLessThan(0.75 + 0.1);
  });
});

describe("Peers", () => {
  /** A store whose traffic seconds hold `rows`, answering as the real query does. */
  const storeWith = (
    kind: "postgres" | "pglite",
    rows: Array<{ process: string; model: string; at: number }>,
  ) => {
    const asked: number[] = [];
    const store = {
      kind,
      traffic: {
        record: async () => undefined,
        of: async () => [],
        othersModels: async (process: string, from: number) => {
          asked.push(from);
          return [...new Set(rows.filter((r) => r.process !== process && r.at >= from).map((r) => r.model))];
        },
      },
    };
    return { store, asked };
  };

  it("knows a model another process recorded traffic for within the window, not its own", async () => {
    const { store, asked } = storeWith("postgres", [
      { process: "me", model: "mine-only", at: 1_000 },
      { process: "me", model: "both", at: 1_000 },
      { process: "other", model: "both", at: 1_000 },
      { process: "other", model: "long-ago", at: 1_000 - PEERS_WINDOW_SECONDS - 1 },
    ]);
    const peers = new Peers(store, "me");
    expect(peers.sharing("both")).toBe(false);
    await peers.refresh(1_000);
    expect(asked).toEqual([1_000 - PEERS_WINDOW_SECONDS]);
    expect(peers.sharing("both")).toBe(true);
    expect(peers.sharing("mine-only")).toBe(false);
    expect(peers.sharing("long-ago")).toBe(false);
    // The other process went quiet: past the window the model is this process's alone again.
    await peers.refresh(1_001 + PEERS_WINDOW_SECONDS);
    expect(peers.sharing("both")).toBe(false);
  });

  it("asks nothing of a store no other process shares", () => {
    const { store, asked } = storeWith("pglite", [{ process: "other", model: "m", at: 1_000 }]);
    const peers = new Peers(store, "me");
    peers.start();
    peers.stop();
    expect(asked).toEqual([]);
    expect(peers.sharing("m")).toBe(false);
  });

  it("keeps what it knew when the store cannot answer", async () => {
    let fail = false;
    const errors: unknown[] = [];
    const store = {
      kind: "postgres" as const,
      traffic: {
        record: async () => undefined,
        of: async () => [],
        othersModels: async () => {
          if (fail) throw new Error("down");
          return ["m"];
        },
      },
    };
    const peers = new Peers(store, "me", (err) => errors.push(err));
    await peers.refresh(1_000);
    fail = true;
    await peers.refresh(1_002);
    expect(peers.sharing("m")).toBe(true);
    expect(errors).toHaveLength(1);
  });
});

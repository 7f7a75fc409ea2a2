import { DEFAULT_SLOTS, slotsOfArgs } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { type Candidate, chooseReplica } from "../src/gateway/choose";

// The pure rules of SPEC §7.1: which replica takes a request, and how many each takes at once.

const replicas = (...inFlight: number[]): Candidate[] =>
  inFlight.map((n, i) => ({ id: `r${i}`, inFlight: n, slots: 4 }));

describe("chooseReplica", () => {
  it("takes the replica with the fewest in flight", () => {
    expect(chooseReplica(replicas(2, 0, 1), null, 0)?.id).toBe("r1");
  });

  it("takes tied replicas in turn", () => {
    const picks = [0, 1, 2, 3].map((turn) => chooseReplica(replicas(1, 1, 1), null, turn)?.id);
    expect(picks).toEqual(["r0", "r1", "r2", "r0"]);
  });

  it("is null when every replica is at its slots", () => {
    expect(chooseReplica(replicas(4, 4), null, 0)).toBeNull();
  });

  it("sticks a session key to one replica however busy the others are, within the bound", () => {
    const home = chooseReplica(replicas(0, 0, 0), "session-7", 0)?.id;
    const busy = replicas(0, 0, 0).map((c) => (c.id === home ? { ...c, inFlight: 1 } : c));
    expect(chooseReplica(busy, "session-7", 5)?.id).toBe(home);
  });

  it("spreads different session keys over the replicas", () => {
    const homes = new Set(
      Array.from({ length: 60 }, (_, i) => chooseReplica(replicas(0, 0, 0), `user-${i}`, 0)?.id),
    );
    expect(homes.size).toBe(3);
  });

  it("leaves the key's replica when it has more than twice the average in flight", () => {
    const home = chooseReplica(replicas(0, 0, 0, 0), "k", 0)?.id;
    const loaded = replicas(0, 0, 0, 0).map((c) => (c.id === home ? { ...c, inFlight: 3 } : c));
    // Average 0.75: 3 is more than twice that.
    expect(chooseReplica(loaded, "k", 0)?.id).not.toBe(home);
  });
});

describe("slotsOfArgs", () => {
  it.each([
    [["--parallel", "8"], 8],
    [["-np", "2"], 2],
    [["--parallel=3"], 3],
    [["--ctx-size", "4096"], DEFAULT_SLOTS],
    [["--parallel", "zero"], DEFAULT_SLOTS],
    [[], DEFAULT_SLOTS],
  ])("%j takes %i at once", (args, slots) => {
    expect(slotsOfArgs(args)).toBe(slots);
  });
});

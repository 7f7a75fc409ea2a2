import type { Pull } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { withPull } from "./api/get-pulls";
import { notePullProgress, pullRateOf } from "./pull-rate";

let sequence = 0;
function aPull(overrides: Partial<Pull> = {}): Pull {
  sequence += 1;
  return {
    id: `pull-${sequence}`,
    repo: "o/r",
    revision: "main",
    commit: "c".repeat(40),
    model: "r",
    version: "Q4_K_M",
    state: "downloading",
    files: [],
    bytesDone: 0,
    bytesTotal: 1000e6,
    error: null,
    at: "2025-01-01T00:00:00.000Z",
    by: "ops",
    ...overrides,
  };
}

describe("the pulls list", () => {
  it("replaces a pull by id, and puts a new one first", () => {
    const a = aPull();
    const b = aPull();
    expect(withPull([a], { ...a, bytesDone: 5 })).toEqual([{ ...a, bytesDone: 5 }]);
    expect(withPull([a], b)).toEqual([b, a]);
    expect(withPull(undefined, b)).toBeUndefined();
  });
});

describe("a pull's speed", () => {
  it("comes from the progress seen, and is forgotten once the pull ends", () => {
    const pull = aPull();
    notePullProgress(pull, 0);
    expect(pullRateOf(pull)).toEqual({ speed: null, secondsLeft: null });
    notePullProgress({ ...pull, bytesDone: 200e6 }, 2000);
    expect(pullRateOf({ ...pull, bytesDone: 200e6 })).toEqual({ speed: 100e6, secondsLeft: 8 });
    notePullProgress({ ...pull, state: "complete" }, 3000);
    expect(pullRateOf(pull)).toEqual({ speed: null, secondsLeft: null });
  });
});

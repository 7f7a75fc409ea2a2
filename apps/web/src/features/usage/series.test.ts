import type { UsageReadingRow } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { MAX_SERIES, OTHERS, stack, sumsByKey, tokensOf } from "./series";

const H = 3_600_000;
const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);
const row = (hour: number, key: string, tokens: number, replicaHours?: number): UsageReadingRow => ({
  at: new Date(T0 + hour * H).toISOString(),
  key,
  requests: 1,
  refused: 0,
  failed: 0,
  promptTokens: tokens,
  cachedTokens: 0,
  completionTokens: 0,
  ...(replicaHours === undefined
    ? {}
    : { replicaHours, memoryGBHours: 8 * replicaHours, coreHours: replicaHours, gpuHours: 0 }),
});
const range = {
  from: new Date(T0).toISOString(),
  to: new Date(T0 + 3 * H).toISOString(),
  step: "hour" as const,
};

describe("the Usage page's series", () => {
  it("stacks one series per key, largest first, with a point per step and the period's end", () => {
    const s = stack([row(0, "a", 1), row(0, "b", 5), row(2, "a", 2)], tokensOf, range);
    expect(s.keys).toEqual(["b", "a"]);
    expect(s.totals).toEqual([5, 3]);
    expect(s.x).toEqual([T0 / 1000, (T0 + H) / 1000, (T0 + 2 * H) / 1000, (T0 + 3 * H) / 1000]);
    expect(s.values).toEqual([
      [5, 0, 0],
      [1, 0, 2],
    ]);
    expect(s.tops).toEqual([
      [5, 0, 0, 0],
      [6, 0, 2, 2],
    ]);
  });

  it("folds the smaller keys into one series beyond MAX_SERIES, and leaves out keys of nothing", () => {
    const rows = Array.from({ length: MAX_SERIES + 3 }, (_, i) => row(1, `k${i}`, 100 - i));
    const s = stack([...rows, row(1, "zero", 0)], tokensOf, range);
    expect(s.keys).toHaveLength(MAX_SERIES);
    expect(s.keys.at(-1)).toBe(OTHERS);
    expect(s.totals.reduce((a, b) => a + b, 0)).toBe(rows.reduce((a, r) => a + tokensOf(r), 0));
  });

  it("sums the table by key, replica figures included when the rows carry them", () => {
    const sums = sumsByKey([row(0, "a", 1, 0.5), row(1, "b", 9, 0), row(2, "a", 2, 1)]);
    expect(sums.map((r) => [r.key, r.requests, tokensOf(r), r.replicaHours, r.memoryGBHours])).toEqual([
      ["b", 1, 9, 0, 0],
      ["a", 2, 3, 1.5, 12],
    ]);
    expect(sumsByKey([row(0, "t", 1), row(1, "t", 1)])[0]).not.toHaveProperty("replicaHours");
  });
});

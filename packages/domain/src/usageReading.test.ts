import { describe, expect, it } from "vitest";
import { type UsageCounts, zeroCounts } from "./usage";
import { type ReplicaSum, readingOf, type UsageSum } from "./usageReading";

// SPEC §12.2: the reading's rows, oldest first then by key, one per step and key, from the
// store's sums (in order) or from any list of sums (summed and sorted here).

const DAY = 86_400_000;
const counts = (n: number): UsageCounts => ({ ...zeroCounts(), requests: n, promptTokens: 10 * n });
const sum = (day: number, key: string, n: number): UsageSum => ({ at: day * DAY, key, ...counts(n) });
const replicas = (day: number, key: string, hours: number): ReplicaSum => ({
  at: day * DAY,
  key,
  replicaHours: hours,
  memoryGBHours: 8 * hours,
  coreHours: 2 * hours,
  gpuHours: 0,
});

describe("readingOf", () => {
  it("merges counts and replica figures of the same step and key, and keeps the ones on one side only", () => {
    const { rows, totals } = readingOf(
      [sum(0, "chat", 1), sum(0, "code", 2), sum(1, "chat", 4)],
      [replicas(0, "chat", 0.5), replicas(0, "gpu", 2), replicas(2, "chat", 1)],
      "model",
    );
    expect(rows.map((r) => [r.at.slice(0, 10), r.key, r.requests, r.replicaHours])).toEqual([
      ["1970-01-01", "chat", 1, 0.5],
      ["1970-01-01", "code", 2, 0],
      ["1970-01-01", "gpu", 0, 2],
      ["1970-01-02", "chat", 4, 0],
      ["1970-01-03", "chat", 0, 1],
    ]);
    expect(totals).toMatchObject({ requests: 7, promptTokens: 70, replicaHours: 3.5, memoryGBHours: 28 });
  });

  it("sums and sorts sums that come out of order or twice for one step and key", () => {
    const { rows, totals } = readingOf(
      [sum(1, "b", 1), sum(0, "b", 2), sum(1, "a", 4), sum(1, "b", 8)],
      [],
      "token",
    );
    expect(rows.map((r) => [r.at.slice(0, 10), r.key, r.requests, r.promptTokens])).toEqual([
      ["1970-01-01", "b", 2, 20],
      ["1970-01-02", "a", 4, 40],
      ["1970-01-02", "b", 9, 90],
    ]);
    expect(totals).toEqual({ ...zeroCounts(), requests: 15, promptTokens: 150 });
  });

  it("gives token rows and totals no replica figures, even when some are passed", () => {
    const { rows, totals } = readingOf([sum(0, "alice", 1)], [replicas(0, "alice", 1)], "token");
    expect(rows).toEqual([{ at: "1970-01-01T00:00:00.000Z", key: "alice", ...counts(1) }]);
    expect(totals).toEqual(counts(1));
  });
});

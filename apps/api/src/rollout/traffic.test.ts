import { revisionCountKey } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { RevisionCounts } from "./traffic";

// SPEC §11.4: the requests each revision was sent, summed over the processes from their demand
// rows. A process that stops (or is killed) mid-rollout keeps its share of the sums.

const key = (revision: number) => revisionCountKey("m", 2, revision);
const row = (process: string, old: [number, number], fresh: [number, number]) => ({
  process,
  revisions: {
    [key(1)]: { sent: old[0], failed: old[1] },
    [key(2)]: { sent: fresh[0], failed: fresh[1] },
  },
});

describe("the other processes' counts of a rollout", () => {
  it("sum every process's last row, and keep a process's counts once its row is gone", () => {
    const counts = new RevisionCounts();
    counts.takeOthers([row("a", [40, 0], [8, 4]), row("b", [30, 1], [6, 2])]);
    expect(counts.of("m", 1, 2)).toEqual({ old: { sent: 70, failed: 1 }, new: { sent: 14, failed: 6 } });

    // a died (its row went stale, so it is no longer read) while b still records the rollout.
    counts.takeOthers([row("b", [35, 1], [7, 3])]);
    expect(counts.of("m", 1, 2)).toEqual({ old: { sent: 75, failed: 1 }, new: { sent: 15, failed: 7 } });

    // No row at all this second, then b's rollout ended and it records it no more: nothing falls.
    counts.takeOthers([]);
    counts.takeOthers([{ process: "b", revisions: {} }]);
    expect(counts.of("m", 1, 2)).toEqual({ old: { sent: 75, failed: 1 }, new: { sent: 15, failed: 7 } });
  });

  it("count a process's newer row in place of its older one, not on top of it", () => {
    const counts = new RevisionCounts();
    counts.takeOthers([row("a", [10, 0], [2, 0])]);
    counts.takeOthers([row("a", [12, 0], [3, 1])]);
    expect(counts.of("m", 1, 2)).toEqual({ old: { sent: 12, failed: 0 }, new: { sent: 3, failed: 1 } });
    // Another rollout's counts (to 3) are not this one's.
    expect(counts.of("m", 2, 3)).toEqual({ old: { sent: 0, failed: 0 }, new: { sent: 0, failed: 0 } });
  });
});

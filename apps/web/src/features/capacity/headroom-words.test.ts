import type { Headroom } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { makeView } from "../../testing/views";
import { headroomWords } from "./headroom-words";

const headroomOf = (h: Partial<Headroom>) => makeView({ headroom: h }).headroom;

describe("headroomWords", () => {
  it("puts what can start first, then now and by preempting whom", () => {
    const words = headroomWords(
      headroomOf({
        total: 3,
        free: 1,
        byPreemption: 2,
        victimsByClass: { standard: 1, batch: 2 },
        quotaRemaining: 5,
      }),
    );
    expect(words).toEqual({
      big: "+3",
      after: "more can start",
      onlyByPreempting: false,
      now: "+1 now",
      preempting: "+2 by preempting batch ×2, standard ×1",
      quota: "5 replicas",
    });
  });

  it("says when none can start, and when a fit costs other models' replicas", () => {
    expect(headroomWords(headroomOf({ total: 0, free: 0, byPreemption: 0 }))).toMatchObject({
      big: "No more",
      after: "replicas can start",
      onlyByPreempting: false,
      now: "+0 now",
      preempting: "+0 by preemption",
      quota: "no limit",
    });
    expect(
      headroomWords(headroomOf({ total: 1, free: 0, byPreemption: 1, victimsByClass: { batch: 1 } })),
    ).toMatchObject({ big: "+1", onlyByPreempting: true, preempting: "+1 by preempting batch ×1" });
  });
});

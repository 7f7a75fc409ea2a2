import type { ModelTraffic } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { TRAFFIC_WINDOW_SECONDS, type TrafficSnapshot } from "../lib/traffic";
import { progressText } from "./ReplicaProgress";
import { marksSummary, rolloutMarks, trafficSummary, wakingText } from "./TrafficPanel";

const GB = 1024 ** 3;

function snapshotOf(recent: number[]): TrafficSnapshot {
  const perSecond = [...Array.from({ length: TRAFFIC_WINDOW_SECONDS - recent.length }, () => 0), ...recent];
  return { model: "m", from: 0, perSecond, current: null };
}

describe("what the cards say", () => {
  it("a download in the total's unit, a load without bytes, an unknown size without a fraction", () => {
    expect(progressText({ phase: "download", bytesDone: 1.2 * GB, bytesTotal: 4.1 * GB })).toBe(
      "downloading 1.2 / 4.1 GB (29%)",
    );
    expect(progressText({ phase: "download", bytesDone: 300 * 1024 ** 2, bytesTotal: null })).toBe(
      "downloading 300.0 MB",
    );
    expect(progressText({ phase: "load", bytesDone: 4 * GB, bytesTotal: 4 * GB })).toBe("loading");
  });

  it("a waking model's queue and how long its first request has waited", () => {
    const waking = { queued: 3, waitingSeconds: 12.4, waking: true } as ModelTraffic;
    expect(wakingText(waking)).toBe("waking: 3 requests waiting for 12 s");
    expect(wakingText({ ...waking, queued: 1, waitingSeconds: null })).toBe("waking: 1 request waiting");
  });

  it("the chart's words: now, the peak and when, the average over the window", () => {
    const recent = [...Array.from({ length: 60 }, () => 0), 30, ...Array.from({ length: 59 }, () => 1), 2];
    expect(trafficSummary(snapshotOf(recent))).toBe(
      "Requests per second over the last 5 minutes: 2 now, peak 30 (1 min ago), average 0.3.",
    );
    expect(trafficSummary(snapshotOf([0]))).toBe("Requests per second over the last 5 minutes: none.");
  });
});

describe("a rollout's marks on the chart", () => {
  const from = 1_000;
  const iso = (second: number) => new Date(second * 1000).toISOString();
  const rollout = { to: 3, state: "rolling" as const, startedAt: iso(from + 250), at: iso(from + 250) };

  it("marks where it began, and where it ended once done or rolled back, in seconds before now", () => {
    expect(rolloutMarks(rollout, from, 300)).toEqual([{ x: -49, label: "rollout to r3" }]);
    const over = { ...rollout, state: "rolledBack" as const, at: iso(from + 290) };
    const marks = rolloutMarks(over, from, 300);
    expect(marks).toEqual([
      { x: -49, label: "rollout to r3" },
      { x: -9, label: "rolled back" },
    ]);
    expect(marksSummary(over, marks)).toBe("Rollout to revision 3 began 49 s ago; rolled back 9 s ago.");
  });

  it("leaves out a mark outside the window, and says nothing with no rollout", () => {
    const old = { ...rollout, state: "done" as const, startedAt: iso(from - 20), at: iso(from + 299) };
    expect(rolloutMarks(old, from, 300)).toEqual([{ x: 0, label: "done" }]);
    expect(rolloutMarks(null, from, 300)).toEqual([]);
    expect(marksSummary(null, [])).toBe("");
  });
});

import type { ModelTraffic } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { TRAFFIC_WINDOW_SECONDS, type TrafficSnapshot } from "../lib/traffic";
import { progressText } from "./ReplicaProgress";
import { trafficSummary, wakingText } from "./TrafficPanel";

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

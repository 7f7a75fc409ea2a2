import { describe, expect, it } from "vitest";
import { makeView } from "../testing/views";
import { noteModel, ScalingStore, scaleSeries } from "./scaling";

const T0 = Date.UTC(2026, 0, 1, 14, 0);

describe("the replicas a card's chart draws (SPEC §9.5)", () => {
  it("keeps a change only when the counts move, and the one before the window still counts", () => {
    let now = T0;
    const store = new ScalingStore(() => now);
    store.note("chat", 1, 1);
    store.note("chat", 1, 1);
    now += 2000;
    store.note("chat", 1, 4);
    now += 3000;
    store.note("chat", 4, 4);
    expect(store.get("chat")).toEqual([
      { at: T0, running: 1, wanted: 1 },
      { at: T0 + 2000, running: 1, wanted: 4 },
      { at: T0 + 5000, running: 4, wanted: 4 },
    ]);
    now += 400_000;
    store.note("chat", 1, 1);
    expect(store.get("chat")?.map((p) => p.running)).toEqual([4, 1]);
  });

  it("reads per second what was in force at the end of each, nothing before the first change", () => {
    const points = [
      { at: T0 + 1500, running: 1, wanted: 1 },
      { at: T0 + 2500, running: 1, wanted: 3 },
      { at: T0 + 4000, running: 3, wanted: 3 },
    ];
    const series = scaleSeries(points, T0 / 1000, 6);
    expect(series.running).toEqual([null, 1, 1, 1, 3, 3]);
    expect(series.wanted).toEqual([null, 1, 3, 3, 3, 3]);
  });

  it("notes an autoscaled model's ready replicas and wanted, and nothing of one that is not", () => {
    const store = new ScalingStore(() => T0);
    const ready = { id: "r1", model: "chat", profile: "cpu", node: "n1", state: "ready" as const };
    const replica = { ...ready, memoryGB: 8, cpuCores: 4, gpus: 0, measuredMemoryGB: null };
    const line = { demand: 9, target: 4, desired: 3, wanted: 3, holdUntil: null, quotaAllows: null };
    const rest = { startedAt: new Date(T0).toISOString(), reason: null, endpoint: null, progress: null };
    noteModel(store, makeView({ name: "chat", replicas: [{ ...replica, ...rest }], autoscale: line }));
    noteModel(store, makeView({ name: "fixed" }));
    expect(store.get("chat")).toEqual([{ at: T0, running: 1, wanted: 3 }]);
    expect(store.get("fixed")).toBeNull();
  });
});

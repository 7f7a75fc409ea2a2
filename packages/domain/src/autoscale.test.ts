import { describe, expect, it } from "vitest";
import { makeModel, makeProfile } from "../test/factories";
import {
  autoscaleFloor,
  autoscaleTarget,
  DEMAND_STALE_MS,
  DRAIN_SETTLE_MS,
  desiredForDemand,
  desiredForReplicas,
  drainOver,
  isAutoscaled,
  LOCAL_DRAIN_SETTLE_MS,
  resumeWindow,
  scaledAfterText,
  scaledAudit,
  scaledBeforeText,
  scaleReason,
  scaleStep,
  sumDemand,
} from "./autoscale";

const T0 = Date.UTC(2026, 0, 1, 14, 0);

describe("which models are autoscaled (SPEC §2.1)", () => {
  it("is a max above the floor: min, or the one replica an awake on-demand model runs", () => {
    expect(isAutoscaled({ min: 1, max: 4 })).toBe(true);
    expect(isAutoscaled({ min: 2, max: 2 })).toBe(false);
    expect(isAutoscaled({ min: 0, max: 3 })).toBe(true);
    expect(isAutoscaled({ min: 0, max: 1 })).toBe(false);
    expect(isAutoscaled({ min: 0, max: 0 })).toBe(false);
  });

  it("floors at min, at 1 for an awake on-demand model and at 0 for an idle one", () => {
    expect(autoscaleFloor({ min: 2, max: 4 }, false)).toBe(2);
    expect(autoscaleFloor({ min: 0, max: 4 }, true)).toBe(1);
    expect(autoscaleFloor({ min: 0, max: 4 }, false)).toBe(0);
  });
});

describe("desired replicas (SPEC §9.2)", () => {
  it("targets scaling.targetInFlight, else the replica's slots (--parallel, else 4)", () => {
    const model = makeModel({ profiles: [makeProfile({ args: ["--parallel", "8"] })] });
    expect(autoscaleTarget(model)).toBe(8);
    expect(autoscaleTarget({ ...model, scaling: { ...model.scaling, targetInFlight: 3 } })).toBe(3);
    expect(autoscaleTarget(makeModel({ profiles: [makeProfile({ args: [] })] }))).toBe(4);
  });

  it("targets, for a replica yet to be placed, the slots of the profile placement tries first (SPEC §2.6)", () => {
    const model = makeModel({
      profiles: [
        makeProfile({ name: "cpu", priority: 0, args: ["--parallel", "4"] }),
        makeProfile({ name: "gpu", priority: 10, args: ["--parallel", "16"] }),
      ],
    });
    expect(autoscaleTarget(model)).toBe(16);
    expect(autoscaleTarget({ ...model, scaling: { ...model.scaling, targetInFlight: 3 } })).toBe(3);
  });

  it("counts each running replica at its own profile's slots, then new ones at the target", () => {
    // One GPU replica (16) and two CPU ones (4 each) hold 24: a demand of 24 wants the 3 it runs,
    // not ceil(24 / 4) = 6 (the first profile's slots) nor ceil(24 / 16) = 2.
    expect(desiredForReplicas(24, [16, 4, 4], 16, 1, 8)).toBe(3);
    expect(desiredForReplicas(25, [16, 4, 4], 16, 1, 8)).toBe(4);
    expect(desiredForReplicas(56, [4, 4], 16, 1, 8)).toBe(5);
    expect(desiredForReplicas(57, [4, 4], 16, 1, 8)).toBe(6);
    // The oldest are counted first: a demand the first replica holds wants that one.
    expect(desiredForReplicas(10, [16, 4, 4], 16, 1, 8)).toBe(1);
    expect(desiredForReplicas(0, [16, 4], 16, 1, 8)).toBe(1);
    expect(desiredForReplicas(0, [16, 4], 16, 0, 8)).toBe(0);
    expect(desiredForReplicas(1000, [4], 16, 1, 8)).toBe(8);
    // Equal slots everywhere: the same as ceil(demand / target).
    for (const demand of [0, 1, 4, 5, 14, 33])
      expect(desiredForReplicas(demand, [4, 4], 4, 1, 16)).toBe(desiredForDemand(demand, 4, 1, 16));
  });

  it("is ceil(demand / target) within [floor, max]", () => {
    expect(desiredForDemand(14, 4, 1, 4)).toBe(4);
    expect(desiredForDemand(9, 4, 1, 8)).toBe(3);
    expect(desiredForDemand(0, 4, 1, 4)).toBe(1);
    expect(desiredForDemand(100, 4, 1, 4)).toBe(4);
    expect(desiredForDemand(0, 4, 0, 4)).toBe(0);
  });
});

describe("the window (SPEC §9.3)", () => {
  const step = (window: Parameters<typeof scaleStep>[0], seconds: number, desired: number) =>
    scaleStep(window, { at: T0 + seconds * 1000, desired, floor: 1, max: 4, windowMs: 300_000 });

  it("rises at once, holds through a pause shorter than the window, and falls after it", () => {
    const burst = step([], 0, 4);
    expect(burst).toMatchObject({ wanted: 4, holdUntil: null });
    const pause = step(burst.window, 120, 1);
    expect(pause).toMatchObject({ wanted: 4, holdUntil: T0 + 300_000 });
    const stillHeld = step(pause.window, 299, 1);
    expect(stillHeld.wanted).toBe(4);
    expect(step(stillHeld.window, 300, 1)).toMatchObject({ wanted: 1, holdUntil: null });
  });

  it("falls a step at a time: to the highest that is still in the window", () => {
    const a = step([], 0, 4);
    const b = step(a.window, 100, 3);
    const c = step(b.window, 200, 1);
    expect(step(c.window, 310, 1)).toMatchObject({ wanted: 3, holdUntil: T0 + 400_000 });
    expect(step(c.window, 400, 1)).toMatchObject({ wanted: 1, holdUntil: null });
  });

  it("forgets the window of an on-demand model gone idle (floor 0)", () => {
    const busy = step([], 0, 4);
    const idle = scaleStep(busy.window, { at: T0 + 1000, desired: 0, floor: 0, max: 4, windowMs: 300_000 });
    expect(idle).toEqual({ window: [], wanted: 0, holdUntil: null });
  });

  it("is resumed by a new leader from what the last one stored", () => {
    const window = resumeWindow(3, T0 + 200_000, T0, 300_000);
    expect(step(window, 100, 1)).toMatchObject({ wanted: 3, holdUntil: T0 + 200_000 });
    expect(step(window, 200, 1)).toMatchObject({ wanted: 1 });
  });
});

describe("why wanted moved, in numbers (SPEC §9.5)", () => {
  const base = { demand: 14, target: 4, floor: 1, max: 4, windowSeconds: 300 };

  it("says the demand and the target going up, the window going down", () => {
    expect(scaleReason({ ...base, from: 1, to: 4 })).toBe(
      "14 requests in flight or queued, 4 per replica: 4 wanted (max 4)",
    );
    expect(scaleReason({ ...base, demand: 2, from: 4, to: 1 })).toBe(
      "demand at most 4 for 300 s: 1 wanted (min 1, max 4)",
    );
    expect(scaleReason({ ...base, max: 2, from: 4, to: 2 })).toBe("max lowered to 2: 2 wanted");
  });
});

describe("the audit of a change of wanted (SPEC §9.5)", () => {
  it("keeps wanted before and after with the demand and reason, and reads back as the operator says it", () => {
    const entry = scaledAudit({ from: 1, to: 4, demand: 14, reason: "14 requests in flight or queued" });
    expect(entry).toEqual({
      before: { wanted: 1 },
      after: { wanted: 4, demand: 14, reason: "14 requests in flight or queued" },
    });
    expect(scaledBeforeText(entry.before)).toBe("1");
    expect(scaledAfterText(entry.after)).toBe("4: 14 requests in flight or queued");
    expect(scaledAfterText({ something: "else" })).toBeNull();
  });
});

describe("demand over processes (SPEC §9.1)", () => {
  it("sums every process's record and counts one silent for 3 s as 0", () => {
    const sum = sumDemand(
      [
        { at: T0, models: { a: 3, b: 1 }, replicas: { r1: 2 } },
        { at: T0 - 1000, models: { a: 4 }, replicas: { r1: 1, r2: 3 } },
        { at: T0 - DEMAND_STALE_MS - 1, models: { a: 50 }, replicas: { r1: 9 } },
      ],
      T0,
    );
    expect(sum.models).toEqual(
      new Map([
        ["a", 7],
        ["b", 1],
      ]),
    );
    expect(sum.replicas).toEqual(
      new Map([
        ["r1", 3],
        ["r2", 3],
      ]),
    );
  });
});

describe("draining (SPEC §9.3)", () => {
  it("ends once no process has a request on it and everyone has recorded since; or at the bound", () => {
    const bound = { since: T0, boundMs: 60_000 };
    expect(drainOver({ ...bound, now: T0 + 1000, inFlight: 0 })).toBe(false);
    expect(drainOver({ ...bound, now: T0 + DRAIN_SETTLE_MS, inFlight: 0 })).toBe(true);
    expect(drainOver({ ...bound, now: T0 + 30_000, inFlight: 2 })).toBe(false);
    expect(drainOver({ ...bound, now: T0 + 60_000, inFlight: 2 })).toBe(true);
  });

  it("settles sooner where one process counts every request (PGlite), never in the run that drains it", () => {
    const local = { since: T0, boundMs: 60_000, settleMs: LOCAL_DRAIN_SETTLE_MS };
    expect(drainOver({ ...local, now: T0, inFlight: 0 })).toBe(false);
    expect(drainOver({ ...local, now: T0 + LOCAL_DRAIN_SETTLE_MS, inFlight: 0 })).toBe(true);
    expect(drainOver({ ...local, now: T0 + LOCAL_DRAIN_SETTLE_MS, inFlight: 1 })).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { modeOf, replicasOf, scalingFor } from "./runModes";

describe("modeOf", () => {
  it("names the three shapes of SPEC §2.1", () => {
    expect(modeOf({ min: 2, max: 2 })).toBe("always");
    expect(modeOf({ min: 0, max: 3 })).toBe("ondemand");
    expect(modeOf({ min: 0, max: 0 })).toBe("stopped");
  });

  it("calls a hand-written min below max always, since min replicas run regardless", () => {
    expect(modeOf({ min: 1, max: 4 })).toBe("always");
  });
});

describe("scalingFor", () => {
  it("always runs N replicas", () => {
    expect(scalingFor("always", 3)).toEqual({ min: 3, max: 3, idleTimeoutSeconds: 900 });
  });

  it("on demand runs up to N and keeps the idle timeout it has", () => {
    expect(scalingFor("ondemand", 2, 120)).toEqual({ min: 0, max: 2, idleTimeoutSeconds: 120 });
  });

  it("on demand without an idle timeout (or with 0) waits 900 s", () => {
    expect(scalingFor("ondemand", 2)).toEqual({ min: 0, max: 2, idleTimeoutSeconds: 900 });
    expect(scalingFor("ondemand", 2, 0)).toEqual({ min: 0, max: 2, idleTimeoutSeconds: 900 });
  });

  it("stopped is 0, 0 whatever the count, and keeps the idle timeout for a later on demand", () => {
    expect(scalingFor("stopped", 5, 60)).toEqual({ min: 0, max: 0, idleTimeoutSeconds: 60 });
  });

  it("counts N below 1 as 1 for the modes that run anything", () => {
    expect(scalingFor("always", 0)).toMatchObject({ min: 1, max: 1 });
    expect(scalingFor("ondemand", -3)).toMatchObject({ min: 0, max: 1 });
    expect(scalingFor("always", Number.NaN)).toMatchObject({ min: 1, max: 1 });
  });

  it("round-trips through modeOf and replicasOf", () => {
    for (const mode of ["always", "ondemand", "stopped"] as const) {
      const scaling = scalingFor(mode, 4);
      expect(modeOf(scaling)).toBe(mode);
      expect(replicasOf(scaling)).toBe(mode === "stopped" ? 0 : 4);
    }
  });
});

describe("replicasOf", () => {
  it("is what the card shows: max for always and on demand, 0 when stopped", () => {
    expect(replicasOf({ min: 2, max: 2 })).toBe(2);
    expect(replicasOf({ min: 0, max: 3 })).toBe(3);
    expect(replicasOf({ min: 0, max: 0 })).toBe(0);
  });
});

import { DEFAULT_CLASSES, type Replica } from "@llmgw/domain";
import { makeModel, makeProfile, makeReplica } from "@llmgw/domain/testing";
import { describe, expect, it } from "vitest";
import { scaleLines } from "../src/autoscale/lines";
import { Snapshot } from "../src/world/snapshot";

// SPEC §9.2 with §2.6's profiles: an autoscaled model whose replicas run under profiles of
// different slots counts each replica at its own profile's slots, not the first profile's.

const cpu = makeProfile({ name: "cpu", priority: 100, args: ["--parallel", "4"] });
const gpu = makeProfile({ name: "gpu", priority: 200, args: ["--parallel", "16"] });

function lineOf(replicas: Partial<Replica>[], demand: number, targetInFlight: number | null = null) {
  const model = makeModel({
    name: "chat",
    profiles: [cpu, gpu],
    scaling: { min: 1, max: 8, idleTimeoutSeconds: 900, targetInFlight },
  });
  const snap = Snapshot.of({
    models: [model],
    nodes: [],
    replicas: replicas.map((r, i) =>
      makeReplica({
        model: "chat",
        state: "ready",
        startedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        ...r,
      }),
    ),
    classes: [...DEFAULT_CLASSES],
    quotas: [],
  });
  const [line] = scaleLines(snap, new Map([["chat", demand]]), new Map(), Date.now());
  return line;
}

describe("autoscaling a model with several profiles", () => {
  it("counts a GPU replica at 16 and CPU ones at 4: 24 requests want the 3 it runs", () => {
    const running = [{ profile: "gpu" }, { profile: "cpu" }, { profile: "cpu" }];
    expect(lineOf(running, 24)).toMatchObject({ target: 16, desired: 3 });
    // One more request than they hold: one more replica, counted at the GPU profile's slots.
    expect(lineOf(running, 25)?.desired).toBe(4);
    // The newest stop first: 16 requests are held by the oldest (the GPU one) alone.
    expect(lineOf(running, 16)?.desired).toBe(1);
  });

  it("counts CPU replicas at 4 when the GPU profile runs none, and new ones at the GPU's 16", () => {
    expect(lineOf([{ profile: "cpu" }, { profile: "cpu" }], 24)?.desired).toBe(3);
  });

  it("leaves out replicas that are stopping, and keeps targetInFlight for every replica when set", () => {
    const running = [{ profile: "gpu", state: "stopping" as const }, { profile: "cpu" }];
    // Counted, the stopping GPU replica would hold all 16 alone (1 wanted).
    expect(lineOf(running, 16)?.desired).toBe(2);
    expect(lineOf([{ profile: "gpu" }, { profile: "cpu" }], 24, 2)).toMatchObject({ target: 2, desired: 8 });
  });
});

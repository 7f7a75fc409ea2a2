import { describe, expect, it } from "vitest";
import { makeClasses, makeModel, makeNode, replicaOf } from "../../test/factories";
import { keptVersions, specFor, startRollout } from "../rollout";
import type { Model, Node, Replica } from "../schemas";
import { applySchedule } from "./apply";
import { schedule } from "./schedule";

// SPEC §11.2 by simulation: the planner, then the agents doing what it asked, until it rests.

const NOW = Date.UTC(2026, 0, 1);

type Step = { replicas: Replica[]; servingOld: number; servingNew: number };

/** Runs planner and agents in turn: stopping replicas go, starting ones turn ready and listen. */
function rollThrough(model: Model, nodes: Node[], replicas: Replica[], steps = 40): Step[] {
  let n = 0;
  let current = replicas;
  const seen: Step[] = [];
  for (let i = 0; i < steps; i++) {
    const input = {
      models: [model],
      nodes,
      replicas: current,
      classes: makeClasses(),
      quotas: [],
      wakes: new Map(),
      now: NOW + i * 1000,
      newId: (m: string) => `${m}-r${++n}`,
      drain: { inFlight: new Map<string, number>(), boundMs: 60_000 },
    };
    current = applySchedule(current, schedule(input))
      .filter((r) => r.state !== "stopping")
      .map((r) =>
        r.state === "starting" ? { ...r, state: "ready" as const, endpoint: `http://${r.id}:1` } : r,
      );
    const serving = current.filter((r) => r.state === "ready" && r.drainingSince === undefined);
    seen.push({
      replicas: current,
      servingOld: serving.filter((r) => (r.revision ?? 1) === 1).length,
      servingNew: serving.filter((r) => (r.revision ?? 1) !== 1).length,
    });
  }
  return seen;
}

function fleetOf(model: Model, nodes: Node[], perNode: number): Replica[] {
  return nodes.flatMap((node, k) =>
    Array.from({ length: perNode }, (_, j) =>
      replicaOf(model, {
        id: `old-${k}-${j}`,
        node: node.name,
        state: "ready",
        endpoint: `http://o${k}${j}:1`,
      }),
    ),
  );
}

const at = new Date(NOW).toISOString();

describe("a rollout (surge, then drain)", () => {
  it("places the new revision beside the old, then drains old ones as new ones turn ready", () => {
    const v1 = makeModel({ need: { minMemoryGB: 8 }, scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 } });
    const nodes = [makeNode({ memoryGB: 64 })];
    const v2 = startRollout(v1, { ...v1, source: "http://m.test/v2" }, { at, by: "t", canaryPercent: null });

    const steps = rollThrough(v2, nodes, fleetOf(v1, nodes, 2));

    const last = steps.at(-1);
    expect(last?.replicas.map((r) => r.revision)).toEqual([2, 2]);
    // Surge: the new ones are placed while both old ones still serve.
    expect(steps[0]?.replicas.filter((r) => r.revision === 2)).toHaveLength(2);
    for (const step of steps) expect(step.servingOld + step.servingNew).toBeGreaterThanOrEqual(2);
  });

  it("replaces one at a time on a full fleet: never fewer than wanted − 1 serve", () => {
    const v1 = makeModel({ need: { minMemoryGB: 16 }, scaling: { min: 4, max: 4, idleTimeoutSeconds: 900 } });
    const nodes = [makeNode({ memoryGB: 32 }), makeNode({ memoryGB: 32 })];
    const v2 = startRollout(v1, { ...v1, source: "http://m.test/v2" }, { at, by: "t", canaryPercent: null });

    const steps = rollThrough(v2, nodes, fleetOf(v1, nodes, 2));

    expect(steps.at(-1)?.replicas.map((r) => r.revision)).toEqual([2, 2, 2, 2]);
    for (const step of steps) expect(step.servingOld + step.servingNew).toBeGreaterThanOrEqual(3);
  });

  it("holds a canary at one new replica beside every old one", () => {
    const v1 = makeModel({ need: { minMemoryGB: 8 }, scaling: { min: 3, max: 3, idleTimeoutSeconds: 900 } });
    const nodes = [makeNode({ memoryGB: 64 })];
    const v2 = startRollout(v1, { ...v1, source: "http://m.test/v2" }, { at, by: "t", canaryPercent: 10 });

    const steps = rollThrough(v2, nodes, fleetOf(v1, nodes, 3), 10);

    expect(steps.at(-1)).toMatchObject({ servingOld: 3, servingNew: 1 });
  });
});

describe("a second change during a rollout", () => {
  it("wins: it rolls out from the revision still serving, and the one in between drains like an old one", () => {
    const v1 = makeModel({ need: { minMemoryGB: 8 }, scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 } });
    const nodes = [makeNode({ memoryGB: 64 })];
    const v2 = startRollout(v1, { ...v1, source: "http://m.test/v2" }, { at, by: "t", canaryPercent: null });
    const halfway = rollThrough(v2, nodes, fleetOf(v1, nodes, 2), 1).at(-1)?.replicas ?? [];
    expect(halfway.some((r) => r.revision === 2)).toBe(true);

    const v3 = startRollout(v2, { ...v2, source: "http://m.test/v3" }, { at, by: "t", canaryPercent: null });
    expect(v3.rollout).toMatchObject({ from: 1, to: 3, state: "rolling" });
    expect(v3.rollout?.previous.source).toBe(v1.source);
    const steps = rollThrough(v3, nodes, halfway);

    expect(steps.at(-1)?.replicas.map((r) => r.revision)).toEqual([3, 3]);
    for (const step of steps) expect(step.servingOld + step.servingNew).toBeGreaterThanOrEqual(2);
  });
});

describe("keptVersions", () => {
  it("names both mirrored versions of a running rollout, and none once it is done", () => {
    const v1 = makeModel({ source: "http://h:8080/mirror/m/Q4/m.gguf" });
    const v2 = startRollout(
      v1,
      { ...v1, source: "http://h:8080/mirror/m/Q8/m.gguf" },
      { at, by: "t", canaryPercent: null },
    );
    expect(keptVersions([v2])).toEqual([
      { model: "m", version: "Q4" },
      { model: "m", version: "Q8" },
    ]);
    const done = { ...v2, rollout: v2.rollout ? { ...v2.rollout, state: "done" as const } : null };
    expect(keptVersions([done])).toEqual([]);
  });

  it("keeps the version a second change replaced while its replicas run, and tells them to run it", () => {
    const source = (version: string) => `http://h:8080/mirror/m/${version}/m.gguf`;
    const v1 = makeModel({ source: source("Q4") });
    const change = { at, by: "t", canaryPercent: null };
    const v2 = startRollout(v1, { ...v1, source: source("Q8") }, change);
    const v3 = startRollout(v2, { ...v2, source: source("F16") }, change);
    expect(keptVersions([v3]).map((k) => k.version)).toEqual(["Q4", "Q8", "F16"]);
    expect([1, 2, 3].map((revision) => specFor(v3, revision).source)).toEqual(
      ["Q4", "Q8", "F16"].map(source),
    );
  });
});

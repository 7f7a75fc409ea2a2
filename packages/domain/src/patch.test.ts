import { describe, expect, it } from "vitest";
import { makeModel, makeProfile } from "../test/factories";
import { applyPatch, PatchError } from "./patch";

function model() {
  return makeModel({
    name: "llama3",
    class: "standard",
    owner: "research",
    aliases: ["llama"],
    scaling: { min: 2, max: 2, idleTimeoutSeconds: 600 },
    profiles: [
      makeProfile({ name: "cpu", minMemoryGB: 8, cpuCores: 4 }),
      makeProfile({ name: "gpu", engine: "vllm", minMemoryGB: 16, cpuCores: 8, gpus: 1 }),
    ],
  });
}

describe("applyPatch", () => {
  it("applies each changed field and reports it with before and after", () => {
    const before = model();
    const { next, changes } = applyPatch(before, { class: "critical", owner: "ml", memoryGB: 12 });
    expect(changes).toEqual([
      { field: "class", before: "standard", after: "critical" },
      { field: "owner", before: "research", after: "ml" },
      { field: "memoryGB", before: 8, after: 12 },
    ]);
    expect(next).toMatchObject({ class: "critical", owner: "ml" });
    expect(next.profiles[0]?.minMemoryGB).toBe(12);
    expect(next.profiles[1]).toEqual(before.profiles[1]);
    expect(before.class).toBe("standard");
  });

  it("an empty patch changes nothing", () => {
    const before = model();
    expect(applyPatch(before, {})).toEqual({ next: before, changes: [] });
  });

  it("a patch of the values the model already has changes nothing", () => {
    const before = model();
    const same = applyPatch(before, {
      class: "standard",
      owner: "research",
      memoryGB: 8,
      mode: "always",
      replicas: 2,
      aliases: ["llama"],
      maxOutput: null,
    });
    expect(same.changes).toEqual([]);
    expect(same.next).toBe(before);
  });

  it("compares aliases as lists", () => {
    const { changes } = applyPatch(model(), { aliases: ["llama", "l3"] });
    expect(changes).toEqual([{ field: "aliases", before: ["llama"], after: ["llama", "l3"] }]);
  });

  it("applies resources to the profile named, which is itself no change", () => {
    const { next, changes } = applyPatch(model(), { profile: "gpu", gpus: 2, cpuCores: 8 });
    expect(changes).toEqual([{ field: "gpus", before: 1, after: 2 }]);
    expect(next.profiles[1]?.gpus).toBe(2);
    expect(next.profiles[0]?.gpus).toBe(0);
  });

  it("refuses a profile the model does not have", () => {
    const attempt = () => applyPatch(model(), { profile: "tpu", memoryGB: 4 });
    expect(attempt).toThrow(PatchError);
    expect(attempt).toThrow('llama3 has no profile called "tpu"');
    try {
      attempt();
    } catch (err) {
      expect(err).toMatchObject({ field: "profile" });
    }
  });

  it("sets replicas in the current mode", () => {
    const { next, changes } = applyPatch(model(), { replicas: 3 });
    expect(next.scaling).toEqual({ min: 3, max: 3, idleTimeoutSeconds: 600 });
    expect(changes).toEqual([{ field: "replicas", before: 2, after: 3 }]);
  });

  it("sets the mode with the current replicas and idle timeout", () => {
    const { next, changes } = applyPatch(model(), { mode: "ondemand" });
    expect(next.scaling).toEqual({ min: 0, max: 2, idleTimeoutSeconds: 600 });
    expect(changes).toEqual([{ field: "mode", before: "always", after: "ondemand" }]);
  });

  it("reports the replicas a stop drops, and restores a count of 1 when started again", () => {
    const stopped = applyPatch(model(), { mode: "stopped" });
    expect(stopped.changes).toEqual([
      { field: "mode", before: "always", after: "stopped" },
      { field: "replicas", before: 2, after: 0 },
    ]);
    const started = applyPatch(stopped.next, { mode: "always" });
    expect(started.next.scaling).toMatchObject({ min: 1, max: 1 });
  });

  it("refuses replicas for a model that stays stopped, rather than dropping them", () => {
    const { next: stopped } = applyPatch(model(), { mode: "stopped" });
    expect(() => applyPatch(stopped, { replicas: 3 })).toThrow(
      "a stopped model runs no replicas; choose always or on demand as well",
    );
    expect(applyPatch(stopped, { replicas: 3, mode: "ondemand" }).next.scaling).toMatchObject({
      min: 0,
      max: 3,
    });
  });

  it("changes the idle timeout alone", () => {
    const { next, changes } = applyPatch(model(), { idleTimeoutSeconds: 60 });
    expect(next.scaling).toEqual({ min: 2, max: 2, idleTimeoutSeconds: 60 });
    expect(changes).toEqual([{ field: "idleTimeoutSeconds", before: 600, after: 60 }]);
  });

  it("clears the output limit with null, and sets the other plain fields", () => {
    const withLimit = { ...model(), maxOutput: 2048 };
    const { changes } = applyPatch(withLimit, {
      maxOutput: null,
      description: "Meta's 8B",
      contextLength: 16384,
    });
    expect(changes).toEqual([
      { field: "description", before: "", after: "Meta's 8B" },
      { field: "contextLength", before: 8192, after: 16384 },
      { field: "maxOutput", before: 2048, after: null },
    ]);
  });

  it("sets max beside min for autoscaling (SPEC §9.6), after mode and replicas", () => {
    const { next, changes } = applyPatch(model(), { maxReplicas: 6 });
    expect(next.scaling).toMatchObject({ min: 2, max: 6 });
    expect(changes).toEqual([{ field: "maxReplicas", before: null, after: 6 }]);
    const both = applyPatch(next, { replicas: 1, maxReplicas: 4 });
    expect(both.next.scaling).toMatchObject({ min: 1, max: 4 });
    // "mode + replicas" alone still mean {N, N}: autoscaling ends unless max comes with them.
    expect(applyPatch(next, { replicas: 3 }).next.scaling).toMatchObject({ min: 3, max: 3 });
  });

  it("refuses a max below min, or on a stopped model, naming maxReplicas", () => {
    const below = () => applyPatch(model(), { maxReplicas: 1 });
    expect(below).toThrow(PatchError);
    expect(below).toThrow("must be at least min (2)");
    try {
      applyPatch(model(), { mode: "stopped", maxReplicas: 2 });
    } catch (err) {
      expect(err).toMatchObject({ field: "maxReplicas" });
    }
    expect.assertions(3);
  });

  it("sets the target in flight and clears it with null, keeping it across a change of mode", () => {
    const { next, changes } = applyPatch(model(), { targetInFlight: 3 });
    expect(next.scaling.targetInFlight).toBe(3);
    expect(changes).toEqual([{ field: "targetInFlight", before: null, after: 3 }]);
    expect(applyPatch(next, { mode: "ondemand" }).next.scaling.targetInFlight).toBe(3);
    expect(applyPatch(next, { targetInFlight: null }).changes).toEqual([
      { field: "targetInFlight", before: 3, after: null },
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { makeView } from "../../testing/views";
import { cardValuesOf, patchFrom, withPatch } from "./card-fields";

describe("patchFrom", () => {
  it("sends only the fields the operator changed", () => {
    const base = cardValuesOf(makeView({ class: "standard", need: { minMemoryGB: 8 } }));
    const { patch, errors } = patchFrom(base, { ...base, class: "critical", memoryGB: "24" });
    expect(errors).toEqual({});
    expect(patch).toEqual({ class: "critical", memoryGB: 24 });
  });

  it("sends nothing for a field typed back to what it was", () => {
    const base = cardValuesOf(makeView({ owner: "research" }));
    expect(patchFrom(base, { ...base, owner: " research " }).patch).toEqual({});
  });

  it("refuses a count that is not a whole number, on its field", () => {
    const base = cardValuesOf(makeView());
    const { patch, errors } = patchFrom(base, { ...base, cpuCores: "2.5", memoryGB: "-5", gpus: "" });
    expect(errors).toEqual({
      cpuCores: "a whole number, 0 or more",
      memoryGB: "a whole number, 0 or more",
      gpus: "a whole number, 0 or more",
    });
    expect(patch).toEqual({});
  });

  it("does not send a replica count for a model being stopped", () => {
    const base = cardValuesOf(makeView({ scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 } }));
    const { patch } = patchFrom(base, { ...base, mode: "stopped", replicas: "3" });
    expect(patch).toEqual({ mode: "stopped" });
  });
});

describe("autoscaling's fields (SPEC §9.6)", () => {
  const scaling = (min: number, max: number, targetInFlight?: number) =>
    cardValuesOf(makeView({ scaling: { min, max, idleTimeoutSeconds: 900, targetInFlight } }));

  it("sends max when typed, and with replicas when the model scaled above min", () => {
    const one = scaling(1, 1);
    expect(patchFrom(one, { ...one, maxReplicas: "4" }).patch).toEqual({ maxReplicas: 4 });
    const scaled = scaling(1, 4);
    expect(scaled).toMatchObject({ replicas: "1", maxReplicas: "4", targetInFlight: "" });
    expect(patchFrom(scaled, { ...scaled, replicas: "2" }).patch).toEqual({ replicas: 2, maxReplicas: 4 });
    // A model that runs exactly min: replicas alone, max follows on the server.
    const two = scaling(2, 2);
    expect(patchFrom(two, { ...two, replicas: "3" }).patch).toEqual({ replicas: 3 });
    expect(patchFrom(two, { ...two, replicas: "3", maxReplicas: "3" }).patch).toEqual({ replicas: 3 });
    // Down to exactly min again: max is sent, or the server would keep it.
    expect(patchFrom(scaled, { ...scaled, maxReplicas: "1" }).patch).toEqual({ maxReplicas: 1 });
  });

  it("refuses a max below the replicas, or not a whole number above 0, on its field", () => {
    const scaled = scaling(1, 4);
    expect(patchFrom(scaled, { ...scaled, replicas: "5" }).errors).toEqual({
      maxReplicas: "at least the replicas (5)",
    });
    expect(patchFrom(scaled, { ...scaled, maxReplicas: "0" }).errors).toEqual({
      maxReplicas: "a whole number, 1 or more",
    });
    expect(patchFrom(scaled, { ...scaled, maxReplicas: "65" }).errors.maxReplicas).toBeDefined();
  });

  it("sets the target in flight, and clears it back to the slots when blanked", () => {
    const plain = scaling(1, 4);
    expect(patchFrom(plain, { ...plain, targetInFlight: "3" }).patch).toEqual({ targetInFlight: 3 });
    const three = scaling(1, 4, 3);
    expect(patchFrom(three, { ...three, targetInFlight: " " }).patch).toEqual({ targetInFlight: null });
    expect(patchFrom(three, { ...three, targetInFlight: "0" }).errors).toEqual({
      targetInFlight: "a whole number, 1 or more; blank: its slots",
    });
  });

  it("sends no max for an on-demand model, whose replicas are its max", () => {
    const onDemand = cardValuesOf(makeView({ scaling: { min: 0, max: 2, idleTimeoutSeconds: 900 } }));
    expect(patchFrom(onDemand, { ...onDemand, replicas: "3", maxReplicas: "9" }).patch).toEqual({
      replicas: 3,
    });
  });
});

describe("withPatch", () => {
  it("shows the edit as the server will apply it, mode and replicas included", () => {
    const model = makeView({ scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 } });
    const next = withPatch(model, { mode: "ondemand", replicas: 3, memoryGB: 12 });
    expect(next.mode).toBe("ondemand");
    expect(next.scaling).toMatchObject({ min: 0, max: 3 });
    expect(next.profiles[0]?.minMemoryGB).toBe(12);
    expect(next.version).toBe(model.version);
  });
});

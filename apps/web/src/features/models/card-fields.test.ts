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

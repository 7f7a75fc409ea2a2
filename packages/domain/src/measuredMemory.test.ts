import { describe, expect, it } from "vitest";
import { makeModel, replicaOf } from "../test/factories";
import { memoryReading } from "./measuredMemory";

/** A model asking `estimate` GB a replica, with replicas that measure `measured` (null: not yet). */
function measuring(estimate: number, measured: (number | null)[]) {
  const model = makeModel();
  return {
    replicas: measured.map((m) => replicaOf(model, { measuredMemoryGB: m })),
    headroom: { need: { memoryGB: estimate, cpuCores: 1, gpus: 0 } },
  } as Parameters<typeof memoryReading>[0];
}

describe("memoryReading: the measured memory against the estimate (SPEC §6)", () => {
  it("says nothing until a replica has measured", () => {
    expect(memoryReading(measuring(12, []))).toBeNull();
    expect(memoryReading(measuring(12, [null, null]))).toBeNull();
  });

  it("takes within 10% above the estimate as the estimate working (a settled demo's engines)", () => {
    expect(memoryReading(measuring(12, [12.3, 11.8]))).toEqual({
      measured: 12.3,
      estimate: 12,
      verdict: "close",
    });
    expect(memoryReading(measuring(12, [13.2]))?.verdict).toBe("close");
  });

  it("says over past 10% above the largest replica's reading, and under past a quarter below", () => {
    expect(memoryReading(measuring(12, [8, 13.3]))).toEqual({
      measured: 13.3,
      estimate: 12,
      verdict: "over",
    });
    expect(memoryReading(measuring(12, [8.9]))?.verdict).toBe("under");
    expect(memoryReading(measuring(12, [9.1]))?.verdict).toBe("close");
  });

  it("says unasked when a model asks for no memory but its replicas use some", () => {
    expect(memoryReading(measuring(0, [3]))?.verdict).toBe("unasked");
    expect(memoryReading(measuring(0, [0]))?.verdict).toBe("close");
  });
});

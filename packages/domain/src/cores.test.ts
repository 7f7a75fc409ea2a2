import { describe, expect, it } from "vitest";
import { makeNode } from "../test/factories";
import { suggestCores } from "./cores";

describe("suggestCores", () => {
  it("is half the smallest ready node the model fits on", () => {
    const nodes = [makeNode({ cpuCount: 32, memoryGB: 64 }), makeNode({ cpuCount: 12, memoryGB: 32 })];
    expect(suggestCores(nodes, 16)).toBe(6);
  });

  it("goes by mixed nodes: too small, not ready, and reporting 0 cores are left out", () => {
    const nodes = [
      makeNode({ cpuCount: 4, memoryGB: 8 }), // too small for 16 GB
      makeNode({ cpuCount: 6, memoryGB: 64, state: "down" }),
      makeNode({ cpuCount: 0, memoryGB: 128 }), // reports no cores
      makeNode({ cpuCount: 20, memoryGB: 0 }), // reports no memory: may fit
      makeNode({ cpuCount: 24, memoryGB: 64 }),
    ];
    expect(suggestCores(nodes, 16)).toBe(10);
  });

  it("is at least 1", () => {
    expect(suggestCores([makeNode({ cpuCount: 1 })], 1)).toBe(1);
  });

  it("is 0 when no node is left to go by", () => {
    expect(suggestCores([], 8)).toBe(0);
    expect(suggestCores([makeNode({ cpuCount: 0 }), makeNode({ cpuCount: 16, memoryGB: 8 })], 16)).toBe(0);
  });
});

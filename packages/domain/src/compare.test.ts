import { describe, expect, it } from "vitest";
import { compareText } from "./compare";

describe("compareText", () => {
  it('orders by code point, as the store\'s collate "C" does, whatever the locale', () => {
    const names = ["node-9", "Node-1", "node-10", "é-node", "z-node", "node-9"];
    expect([...names].sort(compareText)).toEqual([
      "Node-1",
      "node-10",
      "node-9",
      "node-9",
      "z-node",
      "é-node",
    ]);
    expect(compareText("a", "a")).toBe(0);
    expect(compareText("B", "a")).toBeLessThan(0);
  });
});

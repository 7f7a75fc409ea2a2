import { describe, expect, it } from "vitest";
import { classRank, DEFAULT_CLASSES, outranks } from "./classes";

describe("classes", () => {
  it("ranks by name, an unknown name as standard", () => {
    expect(classRank(DEFAULT_CLASSES, "critical")).toBe(300);
    expect(classRank(DEFAULT_CLASSES, "experimental")).toBe(200);
    expect(classRank([{ name: "gold", rank: 5, description: "" }], "silver")).toBe(200);
  });

  it("outranks strictly", () => {
    expect(outranks(300, 200)).toBe(true);
    expect(outranks(200, 200)).toBe(false);
    expect(outranks(100, 200)).toBe(false);
  });
});

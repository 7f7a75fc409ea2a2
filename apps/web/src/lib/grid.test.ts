import { describe, expect, it } from "vitest";
import { columnsFor, matchesSearch } from "./grid";

describe("columnsFor", () => {
  it("fits as many columns as the width holds with the gaps between them, at least one", () => {
    expect(columnsFor(340, 340)).toBe(1);
    expect(columnsFor(695, 340)).toBe(1);
    expect(columnsFor(696, 340)).toBe(2);
    expect(columnsFor(1200, 340)).toBe(3);
    expect(columnsFor(200, 340)).toBe(1);
    expect(columnsFor(0, 340)).toBe(1);
  });
});

describe("matchesSearch", () => {
  it("finds the search in any text, trimmed and in any case; an empty search matches all", () => {
    expect(matchesSearch(" GPU-a ", "node-gpu-a7")).toBe(true);
    expect(matchesSearch("b", "node-a", "alias-b")).toBe(true);
    expect(matchesSearch("c", "node-a", "alias-b")).toBe(false);
    expect(matchesSearch("  ", "anything")).toBe(true);
  });
});

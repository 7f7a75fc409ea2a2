import { describe, expect, it } from "vitest";
import { counted } from "./counted";

describe("counted", () => {
  it("says one thing in the singular and any other count in the plural", () => {
    expect(counted(1, "replica")).toBe("1 replica");
    expect(counted(0, "replica")).toBe("0 replicas");
    expect(counted(2, "core")).toBe("2 cores");
    expect(counted(1, "GPU")).toBe("1 GPU");
    expect(counted(1.5, "core")).toBe("1.5 cores");
    expect(counted(3, "entry", "entries")).toBe("3 entries");
  });
});

import { describe, expect, it } from "vitest";
import { runningText } from "./running";

describe("runningText", () => {
  it("says running, and starting and elsewhere apart only when there are some", () => {
    expect(runningText({ current: 3, starting: 0, elsewhere: 0 })).toBe("3 running");
    expect(runningText({ current: 3, starting: 1, elsewhere: 1 }, 4)).toBe(
      "3 of 4 running · 1 starting · 1 on a draining or down node",
    );
    expect(runningText({ current: 0, starting: 0, elsewhere: 2 }, 1)).toBe(
      "0 of 1 running · 2 on a draining or down node",
    );
  });
});

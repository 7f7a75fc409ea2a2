import { describe, expect, it } from "vitest";
import { benchEntryText } from "./audit-text";

describe("benchEntryText", () => {
  it("says a bench entry's figures as the card does: the best run, first token, memory", () => {
    const after = {
      runs: [
        { concurrency: 1, requests: 8, errors: 0, tokensPerSecond: 12.4, ttftMsP50: 95 },
        { concurrency: 4, requests: 16, errors: 0, tokensPerSecond: 41.2, ttftMsP50: 180.4 },
      ],
      measuredMemoryGB: 5.23,
    };
    expect(benchEntryText(after)).toBe(
      "measured 41 tok/s at 4 concurrent · first token 180 ms · 5.2 GB measured",
    );
  });

  it("says a bench was stored when the entry keeps no figures it can read", () => {
    expect(benchEntryText({ runs: [], measuredMemoryGB: null })).toBe("bench result stored");
    expect(benchEntryText(null)).toBe("bench result stored");
    expect(benchEntryText({ runs: "lots" })).toBe("bench result stored");
  });
});

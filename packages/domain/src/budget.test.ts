import { describe, expect, it } from "vitest";
import { budgetRefusalMessage, reservationOf, secondsToNextUtcDay, utcDayOf } from "./budget";

describe("a budget's reservation (SPEC §12.3)", () => {
  it("is the body's bytes ÷ 4 plus max_tokens, else max_completion_tokens, else maxOutput, else 4096", () => {
    const base = { bodyBytes: 401, maxTokens: null, maxCompletionTokens: null, maxOutput: null };
    expect(reservationOf({ ...base, maxTokens: 100, maxCompletionTokens: 50, maxOutput: 10 }).total).toBe(
      101 + 100,
    );
    expect(reservationOf({ ...base, maxCompletionTokens: 50, maxOutput: 10 }).total).toBe(101 + 50);
    expect(reservationOf({ ...base, maxOutput: 10 })).toEqual({ prompt: 101, total: 111 });
    expect(reservationOf(base).total).toBe(101 + 4096);
  });

  it("counts days in UTC and waits until the next one", () => {
    const at = Date.parse("2026-03-01T23:59:30.250Z");
    expect(utcDayOf(at)).toBe("2026-03-01");
    expect(utcDayOf(at + 30_000)).toBe("2026-03-02");
    expect(secondsToNextUtcDay(at)).toBe(30);
    expect(secondsToNextUtcDay(Date.parse("2026-03-02T00:00:00Z"))).toBe(86_400);
  });

  it("says the refusal in grouped numbers", () => {
    expect(budgetRefusalMessage(19_850, 20_000, 1_124)).toBe(
      "19,850 of 20,000 tokens used today; this request may use up to 1,124",
    );
  });
});

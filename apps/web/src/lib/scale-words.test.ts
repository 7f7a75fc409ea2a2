import { describe, expect, it } from "vitest";
import { holdText, quotaCapText, rangeText, wantedText } from "./scale-words";

describe("the autoscale line's words (SPEC §9.5)", () => {
  it("says the range, what is wanted and why, when it may come down, and what the quota allows", () => {
    expect(rangeText({ min: 1, max: 4 })).toBe("1–4");
    expect(wantedText({ wanted: 4, demand: 14, target: 4 })).toBe(
      "wanted 4 for 14 requests in flight or queued (4 per replica)",
    );
    expect(holdText({ holdUntil: null })).toBeNull();
    const at = new Date(2026, 0, 1, 14, 5).toISOString();
    expect(holdText({ holdUntil: at }, "en-GB")).toBe("may scale down at 14:05");
    expect(quotaCapText({ quotaAllows: 2 }, "research")).toBe("owner research's quota allows 2");
    expect(quotaCapText({ quotaAllows: null }, "research")).toBeNull();
  });
});

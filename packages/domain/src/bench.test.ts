import { describe, expect, it } from "vitest";
import {
  type BenchSample,
  benchLine,
  benchPrompt,
  benchResultSchema,
  percentile,
  summarizeRun,
} from "./bench";

const ok = (ttftMs: number, tokens: number, generatingMs: number, gapsMs: number[] = []): BenchSample => ({
  ok: true,
  ttftMs,
  tokens,
  generatingMs,
  gapsMs,
});

describe("percentile", () => {
  it("takes the nearest rank, whatever the order", () => {
    const values = [50, 10, 40, 20, 30];
    expect(percentile(values, 50)).toBe(30);
    expect(percentile(values, 95)).toBe(50);
    expect(percentile(values, 0)).toBe(10);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNull();
  });
});

describe("summarizeRun", () => {
  it("counts errors apart and measures tokens over the run's wall time", () => {
    const samples: BenchSample[] = [
      ok(100, 10, 500, [50, 60]),
      ok(300, 20, 1000, [40]),
      { ok: false, message: "503" },
    ];
    const run = summarizeRun(4, samples, 2000);
    expect(run).toEqual({
      concurrency: 4,
      requests: 3,
      errors: 1,
      ttftMs: { p50: 100, p95: 300 },
      itlMsP50: 50,
      tokensPerSecond: 15,
      tokensPerSecondPerRequest: 18,
      requestsPerSecond: 1,
    });
  });

  it("has no latencies when every request failed", () => {
    const run = summarizeRun(1, [{ ok: false, message: "x" }], 10);
    expect(run.errors).toBe(1);
    expect(run.ttftMs).toEqual({ p50: null, p95: null });
    expect(run.itlMsP50).toBeNull();
    expect(run.tokensPerSecond).toBe(0);
  });
});

describe("benchPrompt", () => {
  it("has about the words asked for", () => {
    for (const n of [16, 128, 1000]) {
      const words = benchPrompt(n).split(" ").length;
      expect(Math.abs(words - n)).toBeLessThanOrEqual(1);
    }
  });
});

describe("benchLine", () => {
  it("names the fastest run, its first token and the memory beside the estimate", () => {
    const runs = [summarizeRun(1, [ok(150, 20, 1000)], 1000), summarizeRun(4, [ok(180, 41, 1000)], 1000)];
    expect(benchLine({ runs, measuredMemoryGB: 5.2 }, 6)).toBe(
      "measured 41 tok/s at 4 concurrent · first token 180 ms · 5.2 GB measured (estimate 6 GB)",
    );
    expect(benchLine({ runs, measuredMemoryGB: null }, 6)).toBe(
      "measured 41 tok/s at 4 concurrent · first token 180 ms",
    );
  });
});

describe("benchResultSchema", () => {
  it("names the field that is wrong", () => {
    const parsed = benchResultSchema.safeParse({
      model: "m",
      runs: [{ concurrency: 0 }],
      measuredMemoryGB: null,
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join("."))).toContain("runs.0.concurrency");
  });
});

import type { BenchProgressEvent } from "@llmgw/domain";
import { describe, expect, it, vi } from "vitest";
import { LiveStream } from "../../lib/live";
import { BenchProgressStore, followBenchProgress } from "./bench-progress";

const progress = (
  model: string,
  done: number,
  overrides: Partial<BenchProgressEvent> = {},
): BenchProgressEvent => ({
  model,
  running: true,
  concurrency: 4,
  done,
  total: 96,
  errors: 0,
  error: null,
  ...overrides,
});

describe("bench progress", () => {
  it("keeps each model's latest model.bench event and tells only that model's listeners", () => {
    const store = new BenchProgressStore();
    const live = new LiveStream("/events");
    const off = followBenchProgress(live, store);
    const a = vi.fn();
    const b = vi.fn();
    store.subscribe("a", a);
    store.subscribe("b", b);

    live.dispatch("model.bench", progress("a", 10));
    live.dispatch("model.bench", progress("a", 20));

    expect(store.get("a")).toEqual(progress("a", 20));
    expect(store.get("b")).toBeNull();
    expect(a).toHaveBeenCalledTimes(2);
    expect(b).not.toHaveBeenCalled();

    off();
    live.dispatch("model.bench", progress("a", 96, { running: false }));
    expect(store.get("a")?.done).toBe(20);
  });
});

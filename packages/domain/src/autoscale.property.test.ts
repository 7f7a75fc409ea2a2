import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { desiredForDemand, type ScaleWindow, scaleStep } from "./autoscale";

// SPEC §9.3 on random demand: one sample a second (sometimes a few seconds apart), random
// targets, floors, maxima and windows. The rule must hold at every step, checked against the
// definition read literally: the highest desired of the samples younger than the window.

const caseArb = fc.record({
  target: fc.integer({ min: 1, max: 8 }),
  floor: fc.integer({ min: 1, max: 3 }),
  extra: fc.integer({ min: 0, max: 6 }),
  windowSeconds: fc.integer({ min: 0, max: 20 }),
  steps: fc.array(
    fc.record({ demand: fc.integer({ min: 0, max: 60 }), gapSeconds: fc.integer({ min: 1, max: 4 }) }),
    { minLength: 1, maxLength: 80 },
  ),
});

describe("wanted replicas over random demand (SPEC §9.3)", () => {
  it("stays in [floor, max], never falls while a higher desired is in the window, and rises in the step that asks", () => {
    fc.assert(
      fc.property(caseArb, ({ target, floor, extra, windowSeconds, steps }) => {
        const max = floor + extra;
        const windowMs = windowSeconds * 1000;
        let window: ScaleWindow = [];
        let at = Date.UTC(2026, 0, 1);
        const history: { at: number; desired: number }[] = [];
        let previous: number | null = null;
        for (const { demand, gapSeconds } of steps) {
          at += gapSeconds * 1000;
          const desired = desiredForDemand(demand, target, floor, max);
          history.push({ at, desired });
          const step = scaleStep(window, { at, desired, floor, max, windowMs });
          window = step.window;

          // Never above max or below the floor.
          expect(step.wanted).toBeLessThanOrEqual(max);
          expect(step.wanted).toBeGreaterThanOrEqual(floor);
          // Exactly the highest desired inside the window (this step's included): so it never
          // falls while a higher desired is inside it, and rises in the step that asks for more.
          const inWindow = history.filter((s) => at - s.at < windowMs || s.at === at);
          const highest = Math.max(...inWindow.map((s) => s.desired));
          expect(step.wanted).toBe(highest);
          expect(step.wanted).toBeGreaterThanOrEqual(desired);
          if (previous !== null && step.wanted < previous) {
            // It fell: every sample that asked for more than it now wants has left the window.
            expect(inWindow.every((s) => s.desired <= step.wanted)).toBe(true);
          }
          // Held above what demand asks: held until the sample that holds it leaves the window.
          if (step.wanted > desired) {
            const holder = Math.max(...inWindow.filter((s) => s.desired === step.wanted).map((s) => s.at));
            expect(step.holdUntil).toBe(holder + windowMs);
          } else expect(step.holdUntil).toBeNull();
          // The queue stays short: never more samples than distinct levels between floor and max.
          expect(window.length).toBeLessThanOrEqual(max - floor + 1);
          previous = step.wanted;
        }
      }),
    );
  });
});

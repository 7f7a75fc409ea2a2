// A client token's budget of tokens a UTC day (SPEC §12.3): what a request reserves when it is
// admitted, the day it counts in, and the refusal's numbers.

import { DAY_MS, dayOf } from "./usage";

/** What a request may generate when neither it nor its model says. */
export const DEFAULT_MAX_OUTPUT = 4096;

/**
 * The prompt's estimate (its body's bytes ÷ 4, rounded up) plus the most it may generate:
 * `max_tokens`, else `max_completion_tokens`, else the model's `maxOutput`, else 4096.
 */
export function reservationOf(request: {
  bodyBytes: number;
  maxTokens: number | null;
  maxCompletionTokens: number | null;
  maxOutput: number | null;
}): { prompt: number; total: number } {
  const prompt = Math.ceil(request.bodyBytes / 4);
  const output = request.maxTokens ?? request.maxCompletionTokens ?? request.maxOutput ?? DEFAULT_MAX_OUTPUT;
  return { prompt, total: prompt + output };
}

/** The UTC day of `at` (ms since the epoch), as `YYYY-MM-DD`. */
export function utcDayOf(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** Whole seconds from `at` until the next UTC day begins (at least 1). */
export function secondsToNextUtcDay(at: number): number {
  return Math.max(1, Math.ceil((dayOf(at) + DAY_MS - at) / 1000));
}

const grouped = (n: number) => n.toLocaleString("en-US");

/** `19,850 of 20,000 tokens used today; this request may use up to 1,124`. */
export function budgetRefusalMessage(taken: number, budget: number, reservation: number): string {
  return `${grouped(taken)} of ${grouped(budget)} tokens used today; this request may use up to ${grouped(reservation)}`;
}

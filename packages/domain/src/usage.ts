// SPEC §12: what is counted of each request, by hour, model, client token and owner.

/** The figures one hour of one (model, token, owner) holds; each only ever grows. */
export type UsageCounts = {
  /** Sent to an engine. */
  requests: number;
  /** Answered by llmgw itself (4xx or 503) and never sent. */
  refused: number;
  /** Sent, and answered with an engine 5xx or ended by an error event. */
  failed: number;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
};

/** One row of counts: its hour (ms since the epoch, on the hour, UTC) and its key. */
export type UsageRow = UsageCounts & { hour: number; model: string; token: string; owner: string };

/** The key of "none": a request without a client token, or naming no model llmgw knows. */
export const NO_USAGE_KEY = "-";

/** Counts are kept this long (SPEC §12.1); the longest period one reading may ask for. */
export const USAGE_KEPT_DAYS = 400;

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/**
 * A UTC day that ended this long ago is settled: no count is added to it any more (processes add
 * theirs each second, and put a failed write back for the next), so a reading may keep its sums.
 * Minutes, not seconds, for a process whose clock is behind or whose writes failed a while.
 */
export const USAGE_SETTLED_MS = 10 * 60_000;

/** The counts' fields, in the order readings and CSV give them. */
export const COUNT_FIELDS = [
  "requests",
  "refused",
  "failed",
  "promptTokens",
  "cachedTokens",
  "completionTokens",
] as const satisfies readonly (keyof UsageCounts)[];

/** A record of each of `fields` at 0. */
export function zeroOf<K extends string>(fields: readonly K[]): Record<K, number> {
  const zero = {} as Record<K, number>;
  for (const f of fields) zero[f] = 0;
  return zero;
}

/** Adds each of `fields` of `b` into `a`. */
export function addFields<K extends string>(
  fields: readonly K[],
  a: Record<K, number>,
  b: Record<K, number>,
): void {
  for (const f of fields) a[f] += b[f];
}

export const zeroCounts = (): UsageCounts => zeroOf(COUNT_FIELDS);

/**
 * Adds `b` into `a`. The six written out, not addFields over COUNT_FIELDS: a reading's totals add
 * every row (18,000 for 90 days of 2,000 tokens), and the keyed loop was 4–5 ms of it.
 */
export const addCounts = (a: UsageCounts, b: UsageCounts): void => {
  a.requests += b.requests;
  a.refused += b.refused;
  a.failed += b.failed;
  a.promptTokens += b.promptTokens;
  a.cachedTokens += b.cachedTokens;
  a.completionTokens += b.completionTokens;
};

/** The start of the UTC hour `at` (ms) is in. */
export const hourOf = (at: number): number => Math.floor(at / HOUR_MS) * HOUR_MS;

/** The start of the UTC day `at` (ms) is in: usage's days and budgets' (SPEC §12). */
export const dayOf = (at: number): number => Math.floor(at / DAY_MS) * DAY_MS;

/**
 * How one request counts (SPEC §12.1), from how it ended: `sent` to an engine or not, the status
 * the client got, and whether its stream ended with an error event. A request that was never sent
 * and whose client went away (499) or that succeeded without being sent counts nowhere.
 */
export function countsOf(outcome: {
  sent?: boolean;
  status: number;
  errorEvent?: boolean;
  promptTokens: number | null;
  cachedTokens?: number | null;
  completionTokens: number | null;
}): UsageCounts | null {
  const { sent = false, status } = outcome;
  if (!sent) {
    const refused = (status >= 400 && status < 500 && status !== 499) || status === 503;
    return refused ? { ...zeroCounts(), refused: 1 } : null;
  }
  return {
    requests: 1,
    refused: 0,
    failed: status >= 500 || outcome.errorEvent === true ? 1 : 0,
    promptTokens: outcome.promptTokens ?? 0,
    cachedTokens: outcome.cachedTokens ?? 0,
    completionTokens: outcome.completionTokens ?? 0,
  };
}

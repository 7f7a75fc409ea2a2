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

export const zeroCounts = (): UsageCounts => ({
  requests: 0,
  refused: 0,
  failed: 0,
  promptTokens: 0,
  cachedTokens: 0,
  completionTokens: 0,
});

/** Adds `b` into `a`. */
export function addCounts(a: UsageCounts, b: UsageCounts): void {
  a.requests += b.requests;
  a.refused += b.refused;
  a.failed += b.failed;
  a.promptTokens += b.promptTokens;
  a.cachedTokens += b.cachedTokens;
  a.completionTokens += b.completionTokens;
}

/** The start of the UTC hour `at` (ms) is in. */
export const hourOf = (at: number): number => Math.floor(at / HOUR_MS) * HOUR_MS;

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

export const USAGE_KEYS = ["model", "token", "owner"] as const;
export type UsageKey = (typeof USAGE_KEYS)[number];
export const USAGE_STEPS = ["hour", "day"] as const;
export type UsageStep = (typeof USAGE_STEPS)[number];

/** One row of a usage reading (SPEC §12.2): a step's start (ISO) and the chosen key's value. */
export type UsageReadingRow = UsageCounts & { at: string; key: string };

const DAY_MS = 24 * HOUR_MS;

/** Stored hours summed by step and key, oldest first then by key; and the totals. */
export function rollUp(
  rows: readonly UsageRow[],
  by: UsageKey,
  step: UsageStep,
): { rows: UsageReadingRow[]; totals: UsageCounts } {
  const size = step === "day" ? DAY_MS : HOUR_MS;
  const sums = new Map<string, { at: number; key: string; counts: UsageCounts }>();
  const totals = zeroCounts();
  for (const row of rows) {
    const at = Math.floor(row.hour / size) * size;
    const key = row[by];
    const id = `${at}\u0000${key}`;
    let sum = sums.get(id);
    if (!sum) {
      sum = { at, key, counts: zeroCounts() };
      sums.set(id, sum);
    }
    addCounts(sum.counts, row);
    addCounts(totals, row);
  }
  const out = [...sums.values()]
    .sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ at, key, counts }) => ({ at: new Date(at).toISOString(), key, ...counts }));
  return { rows: out, totals };
}

const CSV_COLUMNS = [
  "at",
  "key",
  "requests",
  "refused",
  "failed",
  "promptTokens",
  "cachedTokens",
  "completionTokens",
] as const;

/** The rows as CSV with a header line (a key is quoted: names may hold commas in theory). */
export function usageCsv(rows: readonly UsageReadingRow[]): string {
  const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  const lines = rows.map((r) => CSV_COLUMNS.map((c) => quote(String(r[c]))).join(","));
  return `${[CSV_COLUMNS.join(","), ...lines].join("\n")}\n`;
}

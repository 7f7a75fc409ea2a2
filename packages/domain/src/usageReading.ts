// SPEC §12.2: stored hours read back by the chosen key and step, as JSON rows or CSV.

import {
  addReplicaFigures,
  type ReplicaFigures,
  type ReplicaHoursRow,
  roundedFigures,
  zeroReplicaFigures,
} from "./replicaHours";
import { addCounts, dayOf, hourOf, type UsageCounts, type UsageRow, zeroCounts } from "./usage";

export const USAGE_KEYS = ["model", "token", "owner"] as const;
export type UsageKey = (typeof USAGE_KEYS)[number];
export const USAGE_STEPS = ["hour", "day"] as const;
export type UsageStep = (typeof USAGE_STEPS)[number];

/**
 * One row of a usage reading (SPEC §12.2): a step's start (ISO) and the chosen key's value. The
 * replica figures are there by model and by owner, never by token (replicas serve every token).
 */
export type UsageReadingRow = UsageCounts & Partial<ReplicaFigures> & { at: string; key: string };
export type UsageTotals = UsageCounts & Partial<ReplicaFigures>;

/** Counts the store summed by step and key: `at` is the step's start (ms since the epoch). */
export type UsageSum = UsageCounts & { at: number; key: string };
/** Replica figures the store summed by step and key (by model or owner only). */
export type ReplicaSum = ReplicaFigures & { at: number; key: string };

/** The start of the step `hour` falls in (UTC days). */
export const stepOf = (hour: number, step: UsageStep): number =>
  step === "day" ? dayOf(hour) : hourOf(hour);

type Sum = { at: number; key: string; counts: UsageCounts; replicas: ReplicaFigures };

/**
 * A reading from the store's sums (SPEC §12.2): counts and replica figures of one step and key in
 * one row, oldest first then by key; and the totals. By token, no replica figures at all.
 */
export function readingOf(
  counts: readonly UsageSum[],
  replicaSums: readonly ReplicaSum[],
  by: UsageKey,
): { rows: UsageReadingRow[]; totals: UsageTotals } {
  const sums = new Map<string, Sum>();
  const totals = zeroCounts();
  const replicaTotals = zeroReplicaFigures();
  const sumOf = (at: number, key: string): Sum => {
    const id = `${at}\u0000${key}`;
    let sum = sums.get(id);
    if (!sum) {
      sum = { at, key, counts: zeroCounts(), replicas: zeroReplicaFigures() };
      sums.set(id, sum);
    }
    return sum;
  };
  for (const row of counts) {
    addCounts(sumOf(row.at, row.key).counts, row);
    addCounts(totals, row);
  }
  const withReplicas = by !== "token";
  if (withReplicas) {
    for (const row of replicaSums) {
      addReplicaFigures(sumOf(row.at, row.key).replicas, row);
      addReplicaFigures(replicaTotals, row);
    }
  }
  const out = [...sums.values()]
    .sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ at, key, counts, replicas }) => ({
      at: new Date(at).toISOString(),
      key,
      ...counts,
      ...(withReplicas ? roundedFigures(replicas) : {}),
    }));
  return { rows: out, totals: withReplicas ? { ...totals, ...roundedFigures(replicaTotals) } : totals };
}

/** Stored hours summed by step and key, as the store's sums would be: for tests and small sets. */
export function rollUp(
  rows: readonly UsageRow[],
  by: UsageKey,
  step: UsageStep,
  replicaRows: readonly ReplicaHoursRow[] = [],
): { rows: UsageReadingRow[]; totals: UsageTotals } {
  return readingOf(
    rows.map((r) => ({ ...r, at: stepOf(r.hour, step), key: r[by] })),
    by === "token" ? [] : replicaRows.map((r) => ({ ...r, at: stepOf(r.hour, step), key: r[by] })),
    by,
  );
}

const COUNT_COLUMNS = [
  "at",
  "key",
  "requests",
  "refused",
  "failed",
  "promptTokens",
  "cachedTokens",
  "completionTokens",
] as const;
const REPLICA_COLUMNS = ["replicaHours", "memoryGBHours", "coreHours", "gpuHours"] as const;

/**
 * The rows as CSV with a header line (a key is quoted: names may hold commas in theory). The
 * replica columns are there when the rows carry them (by model or owner).
 */
export function usageCsv(rows: readonly UsageReadingRow[], by: UsageKey = "model"): string {
  const columns = by === "token" ? COUNT_COLUMNS : [...COUNT_COLUMNS, ...REPLICA_COLUMNS];
  const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  const lines = rows.map((r) => columns.map((c) => quote(String(r[c] ?? 0))).join(","));
  return `${[columns.join(","), ...lines].join("\n")}\n`;
}

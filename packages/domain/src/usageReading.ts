// SPEC §12.2: stored hours read back by the chosen key and step, as JSON rows or CSV.

import {
  addReplicaFigures,
  REPLICA_FIGURES,
  type ReplicaFigures,
  type ReplicaHoursRow,
  roundedFigures,
  zeroReplicaFigures,
} from "./replicaHours";
import { addCounts, COUNT_FIELDS, dayOf, hourOf, type UsageCounts, type UsageRow, zeroCounts } from "./usage";

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

type Keyed = { at: number; key: string };

/** Step first, then key by code unit: the order of a reading's rows. */
const compare = (a: Keyed, b: Keyed): number => a.at - b.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * `sums` in reading order, one per step and key. The store's come so already (checked in one
 * pass, and taken as they are); others are summed and sorted here.
 */
function inOrder<T extends Keyed>(sums: readonly T[], add: (into: T, row: T) => void): readonly T[] {
  let ordered = true;
  for (let i = 1; i < sums.length && ordered; i++) ordered = compare(sums[i - 1] as T, sums[i] as T) < 0;
  if (ordered) return sums;
  const byId = new Map<string, T>();
  for (const row of sums) {
    const id = `${row.at}\u0000${row.key}`;
    const sum = byId.get(id);
    if (sum) add(sum, row);
    else byId.set(id, { ...row });
  }
  return [...byId.values()].sort(compare);
}

/**
 * A reading from the store's sums (SPEC §12.2): counts and replica figures of one step and key in
 * one row, oldest first then by key; and the totals. By token, no replica figures at all. The two
 * lists are merged in order: 90 days of 2,000 tokens are 18,000 rows or more, each made once.
 */
export function readingOf(
  counts: readonly UsageSum[],
  replicaSums: readonly ReplicaSum[],
  by: UsageKey,
): { rows: UsageReadingRow[]; totals: UsageTotals } {
  const withReplicas = by !== "token";
  const c = inOrder(counts, addCounts);
  const r = withReplicas ? inOrder(replicaSums, addReplicaFigures) : [];
  const totals = zeroCounts();
  const replicaTotals = zeroReplicaFigures();
  const rows: UsageReadingRow[] = [];
  // Steps repeat for every key: each step's ISO time is made once.
  let isoOf = Number.NaN;
  let iso = "";
  for (let i = 0, j = 0; i < c.length || j < r.length; ) {
    const count = c[i];
    const replica = r[j];
    const order = count && replica ? compare(count, replica) : count ? -1 : 1;
    const at = order <= 0 ? (count as UsageSum) : (replica as ReplicaSum);
    if (at.at !== isoOf) {
      isoOf = at.at;
      iso = new Date(at.at).toISOString();
    }
    const counted = order <= 0 ? (count as UsageSum) : zeroCounts();
    const row: UsageReadingRow = {
      at: iso,
      key: at.key,
      requests: counted.requests,
      refused: counted.refused,
      failed: counted.failed,
      promptTokens: counted.promptTokens,
      cachedTokens: counted.cachedTokens,
      completionTokens: counted.completionTokens,
    };
    addCounts(totals, counted);
    if (order <= 0) i++;
    if (withReplicas) {
      const figures = order >= 0 ? (replica as ReplicaSum) : zeroReplicaFigures();
      Object.assign(row, roundedFigures(figures));
      addReplicaFigures(replicaTotals, figures);
      if (order >= 0) j++;
    }
    rows.push(row);
  }
  return { rows, totals: withReplicas ? { ...totals, ...roundedFigures(replicaTotals) } : totals };
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

const COUNT_COLUMNS = ["at", "key", ...COUNT_FIELDS] as const;
const REPLICA_COLUMNS = REPLICA_FIGURES;

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

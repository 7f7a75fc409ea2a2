import {
  addCounts,
  addReplicaFigures,
  DAY_MS,
  HOUR_MS,
  type ReplicaFigures,
  type UsageReadingRow,
  type UsageStep,
} from "@llmgw/domain";

// What the Usage page draws (SPEC §12.2): one series per key of the chosen `by`, stacked, on a
// time axis with a point for every step of the period (a step without counts is a 0).

/** Series drawn at most; the smaller keys beyond them are summed as one. */
export const MAX_SERIES = 8;
export const OTHERS = "(others)";

const stepMs = (step: UsageStep) => (step === "day" ? DAY_MS : HOUR_MS);

export type Stacked = {
  /** Keys, largest total first; the last is OTHERS when keys were folded. */
  keys: string[];
  /** Each key's total over the period, in the order of `keys`. */
  totals: number[];
  /** Step starts, and the last step's end, in seconds (uPlot's time unit). */
  x: number[];
  /** Per key, its value at each step. */
  values: number[][];
  /**
   * Per key, the sum of it and every key before it at each step: the top edge it is drawn to,
   * held from a step's start to its end (so its last value repeats at the period's end).
   */
  tops: number[][];
};

/** Tokens a row counts: what the prompt read (cached included) and what the answer generated. */
export const tokensOf = (row: UsageReadingRow) => row.promptTokens + row.completionTokens;
export const replicaHoursOf = (row: UsageReadingRow) => row.replicaHours ?? 0;

export function stack(
  rows: readonly UsageReadingRow[],
  figure: (row: UsageReadingRow) => number,
  range: { from: string; to: string; step: UsageStep },
): Stacked {
  const size = stepMs(range.step);
  const first = Math.floor(Date.parse(range.from) / size) * size;
  const end = Date.parse(range.to);
  const starts: number[] = [];
  for (let at = first; at < end; at += size) starts.push(at);
  const slot = new Map(starts.map((at, i) => [at, i]));

  const byKey = new Map<string, number>();
  for (const row of rows) byKey.set(row.key, (byKey.get(row.key) ?? 0) + figure(row));
  const ranked = [...byKey.entries()]
    .filter(([, total]) => total > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const folded = ranked.length > MAX_SERIES;
  const shown = folded ? ranked.slice(0, MAX_SERIES - 1) : ranked;
  const keys = shown.map(([key]) => key);
  if (folded) keys.push(OTHERS);
  const index = new Map(keys.map((key, i) => [key, i]));

  const values = keys.map(() => starts.map(() => 0));
  for (const row of rows) {
    const i = slot.get(Date.parse(row.at));
    const k = index.get(row.key) ?? (folded ? keys.length - 1 : undefined);
    const line = k === undefined ? undefined : values[k];
    if (i === undefined || line === undefined) continue;
    line[i] = (line[i] ?? 0) + figure(row);
  }
  const totals = values.map((line) => line.reduce((a, b) => a + b, 0));
  const tops: number[][] = [];
  values.forEach((line, k) => {
    const below = tops[k - 1];
    const top = line.map((v, i) => v + (below?.[i] ?? 0));
    tops.push([...top, top.at(-1) ?? 0]);
  });
  const x = [...starts, (starts.at(-1) ?? first) + size].map((at) => at / 1000);
  return { keys, totals, x, values, tops };
}

/** Per key, the period's sums: the table under the chart, largest token use first. */
export function sumsByKey(rows: readonly UsageReadingRow[]): UsageReadingRow[] {
  const sums = new Map<string, UsageReadingRow>();
  for (const row of rows) {
    const sum = sums.get(row.key);
    if (!sum) {
      sums.set(row.key, { ...row });
      continue;
    }
    addCounts(sum, row);
    if (hasReplicaFigures(sum) && hasReplicaFigures(row)) addReplicaFigures(sum, row);
  }
  return [...sums.values()].sort(
    (a, b) =>
      tokensOf(b) - tokensOf(a) ||
      replicaHoursOf(b) - replicaHoursOf(a) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}

const hasReplicaFigures = (row: UsageReadingRow): row is UsageReadingRow & ReplicaFigures =>
  row.replicaHours !== undefined;

/** Tokens as the table and the legend say them: whole, with thousands separated. */
export const tokens = (n: number): string => Math.round(n).toLocaleString("en-US");

/** Hours to two decimals (36 s), thousands separated; less than that but some, "<0.01". */
export const hours = (n: number): string =>
  n > 0 && n < 0.005
    ? "<0.01"
    : n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A replica-hours axis label: 0.05, 0.5, 12, 1.2k. */
export const hoursAxis = (n: number): string =>
  n === 0 ? "0" : n < 10 ? String(Number(n.toPrecision(2))) : compact(n);

/** An axis label: 12k, 3.4M. */
export function compact(n: number): string {
  if (n === 0) return "0";
  return new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 }).format(n);
}

/** Tokens as the table and the legend say them: whole, with thousands separated. */
export const tokens = (n: number): string => Math.round(n).toLocaleString("en-US");

/** Hours to two decimals (36 s), thousands separated. */
export const hours = (n: number): string =>
  n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** An axis label: 12k, 3.4M. */
export function compact(n: number): string {
  if (n === 0) return "0";
  return new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 }).format(n);
}

import { DAY_MS, USAGE_KEYS, type UsageKey, type UsageStep } from "@llmgw/domain";

// The Usage page's choices as its address holds them (SPEC §12.2: period and key in the address).

export const PERIODS = ["24h", "7d", "30d", "90d"] as const;
export type Period = (typeof PERIODS)[number];

/** How long a period is, the step it is drawn in (by hour up to a week, by day beyond), and its words. */
export function periodOf(period: Period): { ms: number; step: UsageStep; label: string } {
  switch (period) {
    case "24h":
      return { ms: DAY_MS, step: "hour", label: "last 24 hours" };
    case "7d":
      return { ms: 7 * DAY_MS, step: "hour", label: "last 7 days" };
    case "30d":
      return { ms: 30 * DAY_MS, step: "day", label: "last 30 days" };
    case "90d":
      return { ms: 90 * DAY_MS, step: "day", label: "last 90 days" };
  }
}

/** The address's `by`, else model; an unknown value reads as the default. */
export const keyFrom = (value: string | null): UsageKey => USAGE_KEYS.find((k) => k === value) ?? "model";

/** The address's `period`, else the last 24 hours. */
export const periodFrom = (value: string | null): Period => PERIODS.find((p) => p === value) ?? "24h";

import type { HeadroomSummary } from "./schemas";

type Counts = Pick<HeadroomSummary, "current" | "starting" | "elsewhere">;

/**
 * A model's replicas in the words every screen uses (the dashboard, `llmgw ctl`): running is
 * `ready` on a `ready` node; starting ones and those on draining or down nodes are said apart,
 * never added in. `3 of 4 running · 1 starting · 1 on a draining or down node`.
 */
export function runningText(counts: Counts, wanted?: number): string {
  const running =
    wanted === undefined ? `${counts.current} running` : `${counts.current} of ${wanted} running`;
  return [running, ...notRunning(counts)].join(" · ");
}

/** The replicas said apart from the running ones: `["1 starting", "1 on a draining or down node"]`. */
export function notRunning(counts: Counts): string[] {
  const parts: string[] = [];
  if (counts.starting > 0) parts.push(`${counts.starting} starting`);
  if (counts.elsewhere > 0) parts.push(`${counts.elsewhere} on a draining or down node`);
  return parts;
}

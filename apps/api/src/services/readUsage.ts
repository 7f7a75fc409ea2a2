import {
  DAY_MS,
  hourOf,
  readingOf,
  USAGE_KEPT_DAYS,
  USAGE_SETTLED_MS,
  type UsageKey,
  type UsageStep,
} from "@llmgw/domain";
import type { Deps } from "../deps";
import { AppError } from "../errors";

export type UsageQuery = { by?: UsageKey; step?: UsageStep; from?: string; to?: string };

/**
 * Usage by the chosen key and step over [from, to) (SPEC §12.2); default the last 24 hours by
 * hour. The current hour's row holds what processes have written so far.
 */
export async function readUsage({ deps, input }: { deps: Deps; input: UsageQuery }) {
  const now = deps.now().getTime();
  const to = input.to === undefined ? now : Date.parse(input.to);
  const from = input.from === undefined ? to - DAY_MS : Date.parse(input.from);
  if (from > to) refuse("from", "from is after to");
  if (to - from > USAGE_KEPT_DAYS * DAY_MS) refuse("to", `the period is longer than ${USAGE_KEPT_DAYS} days`);
  const by = input.by ?? "model";
  const step = input.step ?? "hour";
  // The hour `from` falls in is read whole: its counts are not split within the hour.
  const start = hourOf(from);
  const [counts, replicas] = await Promise.all([
    // Days settled by this process's clock come from its memory once read (the store's SettledDays).
    deps.store.usage.sums(start, to, by, step, now - USAGE_SETTLED_MS),
    by === "token" ? [] : deps.store.usage.replicaSums(start, to, by, step),
  ]);
  const { rows, totals } = readingOf(counts, replicas, by);
  return { by, step, from: new Date(from).toISOString(), to: new Date(to).toISOString(), rows, totals };
}

function refuse(field: string, message: string): never {
  throw new AppError({ code: "bad_request", message, fields: { [field]: message } });
}

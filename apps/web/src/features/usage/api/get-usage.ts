import type { UsageKey } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";
import { type Period, periodOf } from "../period";

/** `GET /usage` for the last `period` by `by`: the window ends now, at every (re)fetch. */
export const getUsage = (by: UsageKey, period: Period) => {
  const { ms, step } = periodOf(period);
  const to = Date.now();
  return answer(
    api.usage.$get({
      query: { by, step, from: new Date(to - ms).toISOString(), to: new Date(to).toISOString() },
    }),
  );
};

export type UsageReading = Awaited<ReturnType<typeof getUsage>>;

/**
 * `["usage"]` prefixes every key and period, so one invalidation refreshes the one on screen.
 * Replica time grows with no event to say so: while the page shows, it is read again every 15 s.
 */
export const usageQueryOptions = (by: UsageKey = "model", period: Period = "24h") =>
  queryOptions({
    queryKey: ["usage", by, period],
    queryFn: () => getUsage(by, period),
    refetchInterval: 15_000,
    placeholderData: (previous) => previous,
  });

export const usagePrefix = () => usageQueryOptions().queryKey.slice(0, 1);

export const useUsage = (by: UsageKey, period: Period) => useQuery(usageQueryOptions(by, period));

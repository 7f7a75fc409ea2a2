import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api, segment } from "./api";
import type { ReceivedHistory } from "./traffic";

// Here rather than in a feature's api/: the traffic panel it feeds is shared by the Capacity and
// Models pages.

/** A model's last minutes of traffic as the server kept them (SPEC §7.7), stamped with when it came. */
export const getModelTraffic = async (name: string): Promise<ReceivedHistory> => {
  const history = await answer(api.models[":name"].traffic.$get({ param: { name: segment(name) } }));
  return { ...history, receivedAt: Date.now() };
};

/**
 * Fetched once per card: from then on the event stream keeps the chart (a reconnect's refetch of
 * every query fills what it missed). Never retried at length: a card says what it does not know
 * rather than wait.
 */
export const modelTrafficQueryOptions = (name: string) =>
  queryOptions({
    queryKey: ["traffic", name],
    queryFn: () => getModelTraffic(name),
    staleTime: Number.POSITIVE_INFINITY,
    retry: 1,
  });

export const useModelTrafficHistory = (name: string) => useQuery(modelTrafficQueryOptions(name));

import type { QuotaUsage } from "@llmgw/domain";
import { type QueryClient, queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getQuotas = (): Promise<QuotaUsage[]> => answer(api.quotas.$get());

export const quotasQueryOptions = () => queryOptions({ queryKey: ["quotas"], queryFn: getQuotas });

export const useQuotas = () => useQuery(quotasQueryOptions());

export function storeQuota(client: QueryClient, quota: QuotaUsage): void {
  client.setQueryData(quotasQueryOptions().queryKey, (list) => {
    if (!list) return list;
    if (!list.some((q) => q.owner === quota.owner))
      return [...list, quota].sort((a, b) => a.owner.localeCompare(b.owner));
    return list.map((q) => (q.owner === quota.owner ? quota : q));
  });
}

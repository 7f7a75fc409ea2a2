import type { Quota, QuotaUsage } from "@llmgw/domain";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { answer, api, segment } from "../../../lib/api";
import { storeQuota } from "./get-quotas";

export type PutQuotaInput = Quota;

export const putQuota = ({ owner, ...limits }: PutQuotaInput): Promise<QuotaUsage> =>
  answer(api.quotas[":owner"].$put({ param: { owner: segment(owner) }, json: limits }));

export function usePutQuota() {
  const client = useQueryClient();
  return useMutation({ mutationFn: putQuota, onSuccess: (quota) => storeQuota(client, quota) });
}

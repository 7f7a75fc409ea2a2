import type { Quota, QuotaUsage } from "@llmgw/domain";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { putQuota as fetchPut } from "../../../lib/api";
import { storeQuota } from "./get-quotas";

export type PutQuotaInput = Quota;

export const putQuota = ({ owner, ...limits }: PutQuotaInput): Promise<QuotaUsage> => fetchPut(owner, limits);

export function usePutQuota() {
  const client = useQueryClient();
  return useMutation({ mutationFn: putQuota, onSuccess: (quota) => storeQuota(client, quota) });
}

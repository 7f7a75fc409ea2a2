import type { AuditEntry } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getAudit = (model: string | null): Promise<AuditEntry[]> =>
  answer(api.audit.$get({ query: model ? { model } : {} }));

/** `["audit"]` prefixes every filter, so one invalidation refreshes them all. */
export const auditQueryOptions = (model: string | null = null) =>
  queryOptions({ queryKey: ["audit", model ?? ""], queryFn: () => getAudit(model) });

export const auditPrefix = () => auditQueryOptions().queryKey.slice(0, 1);

export const useAudit = (model: string | null) => useQuery(auditQueryOptions(model));

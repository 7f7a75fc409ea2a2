import type { ServePlan } from "@llmgw/domain";
import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api, segment } from "../../../lib/api";

export const getServePlan = (model: string, version: string, ctxPool: number): Promise<ServePlan> =>
  answer(
    api.mirror[":model"][":version"].plan.$get({
      param: { model: segment(model), version: segment(version) },
      query: { ctxPool: String(ctxPool) },
    }),
  );

/** The plan for one context pool: the memory estimate grows with the pool's KV cache. */
export const servePlanQueryOptions = (model: string, version: string, ctxPool: number) =>
  queryOptions({
    queryKey: ["mirror", model, version, "plan", ctxPool],
    queryFn: () => getServePlan(model, version, ctxPool),
    placeholderData: keepPreviousData,
  });

export const useServePlan = (model: string, version: string, ctxPool: number, enabled = true) =>
  useQuery({ ...servePlanQueryOptions(model, version, ctxPool), enabled });

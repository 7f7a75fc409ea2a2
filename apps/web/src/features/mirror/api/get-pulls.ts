import type { Pull } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getPulls = (): Promise<Pull[]> => answer(api.mirror.pulls.$get());

/** Newest first; `mirror.pull` events keep it current (live.ts). */
export const pullsQueryOptions = () => queryOptions({ queryKey: ["mirror", "pulls"], queryFn: getPulls });

export const usePulls = (enabled = true) => useQuery({ ...pullsQueryOptions(), enabled });

/** A pull as an event or an answer brings it: replaced by id, or added at the top. */
export function withPull(list: Pull[] | undefined, pull: Pull): Pull[] | undefined {
  if (!list) return list;
  return list.some((p) => p.id === pull.id)
    ? list.map((p) => (p.id === pull.id ? pull : p))
    : [pull, ...list];
}

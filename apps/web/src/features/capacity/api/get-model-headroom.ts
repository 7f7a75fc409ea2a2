import type { Headroom } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api, segment } from "../../../lib/api";

/** One model's headroom with every node's line: fetched only when a person opens the list. */
export const getModelHeadroom = (name: string): Promise<Headroom> =>
  answer(api.models[":name"].headroom.$get({ param: { name: segment(name) } }));

export const modelHeadroomQueryOptions = (name: string) =>
  queryOptions({ queryKey: ["headroom", name, "nodes"], queryFn: () => getModelHeadroom(name) });

export const useModelHeadroom = (name: string, enabled: boolean) =>
  useQuery({ ...modelHeadroomQueryOptions(name), enabled });

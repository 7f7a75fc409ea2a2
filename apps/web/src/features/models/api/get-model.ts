import type { ModelView } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api, segment } from "../../../lib/api";

export const getModel = (name: string): Promise<ModelView> =>
  answer(api.models[":name"].$get({ param: { name: segment(name) } }));

export const modelQueryOptions = (name: string) =>
  queryOptions({ queryKey: ["models", name], queryFn: () => getModel(name) });

export const useModel = (name: string) => useQuery(modelQueryOptions(name));

import type { ModelView } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { getModel as fetchModel } from "../../../lib/api";

export const getModel = (name: string): Promise<ModelView> => fetchModel(name);

export const modelQueryOptions = (name: string) =>
  queryOptions({ queryKey: ["models", name], queryFn: () => getModel(name) });

export const useModel = (name: string) => useQuery(modelQueryOptions(name));

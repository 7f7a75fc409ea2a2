import type { ModelSummary } from "@llmgw/domain";
import { type QueryClient, queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getModels = (): Promise<ModelSummary[]> => answer(api.models.$get());

export const modelsQueryOptions = () => queryOptions({ queryKey: ["models"], queryFn: getModels });

export const useModels = () => useQuery(modelsQueryOptions());

/**
 * Puts a model's latest card into the list. One older than the one held is ignored: events and
 * responses can cross on the wire.
 */
export function storeModel(client: QueryClient, model: ModelSummary): void {
  client.setQueryData(modelsQueryOptions().queryKey, (list) => {
    if (!list) return list;
    const index = list.findIndex((m) => m.name === model.name);
    if (index < 0) return [...list, model].sort((a, b) => a.name.localeCompare(b.name));
    const held = list[index];
    if (held && held.version > model.version) return list;
    return list.map((m, i) => (i === index ? model : m));
  });
}

export function forgetModel(client: QueryClient, name: string): void {
  client.setQueryData(modelsQueryOptions().queryKey, (list) => list?.filter((m) => m.name !== name));
}

import type { ModelView } from "@llmgw/domain";
import { type QueryClient, queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";
import { modelQueryOptions } from "./get-model";

export const getModels = (): Promise<ModelView[]> => answer(api.models.$get());

export const modelsQueryOptions = () => queryOptions({ queryKey: ["models"], queryFn: getModels });

export const useModels = () => useQuery(modelsQueryOptions());

/**
 * Puts a model's latest view into the cache, in the list and under its own key. A view older than
 * the one held is ignored: events and responses can cross on the wire.
 */
export function storeModel(client: QueryClient, model: ModelView): void {
  client.setQueryData(modelsQueryOptions().queryKey, (list) => {
    if (!list) return list;
    const index = list.findIndex((m) => m.name === model.name);
    if (index < 0) return [...list, model].sort((a, b) => a.name.localeCompare(b.name));
    const held = list[index];
    if (held && held.version > model.version) return list;
    return list.map((m, i) => (i === index ? model : m));
  });
  client.setQueryData(modelQueryOptions(model.name).queryKey, (held) =>
    held && held.version > model.version ? held : model,
  );
}

export function forgetModel(client: QueryClient, name: string): void {
  client.setQueryData(modelsQueryOptions().queryKey, (list) => list?.filter((m) => m.name !== name));
  client.removeQueries({ queryKey: modelQueryOptions(name).queryKey, exact: true });
}

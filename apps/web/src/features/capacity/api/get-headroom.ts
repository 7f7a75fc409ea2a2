import type { HeadroomSummary, ModelSummary } from "@llmgw/domain";
import { type QueryClient, queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getHeadroom = (): Promise<HeadroomSummary[]> => answer(api.headroom.$get());

export const headroomQueryOptions = () => queryOptions({ queryKey: ["headroom"], queryFn: getHeadroom });

/**
 * The live headroom list. `shown`: the headroom a page already has (each model's view carries its
 * own, as of its fetch), held as stale until the list arrives. The fetched list is then shared
 * against it, so the entries that did not change keep their objects and their cards do not render
 * again.
 */
export const useHeadroom = (shown?: () => HeadroomSummary[]) =>
  useQuery({ ...headroomQueryOptions(), initialData: shown, initialDataUpdatedAt: 0 });

/**
 * One model's live headroom: its entry in the live list (`headroom.changed` keeps it current),
 * else the model's own, as of its last event or fetch. A card renders again only when its entry
 * changes: the list keeps the identity of the entries that did not.
 */
export function useModelHeadroom(model: Pick<ModelSummary, "name" | "headroom">): HeadroomSummary {
  const live = useQuery({
    ...headroomQueryOptions(),
    select: (list) => list.find((h) => h.model === model.name),
  }).data;
  return live ?? model.headroom;
}

/**
 * Puts models' headroom (a `model.changed` or `headroom.changed` event carries it) into the list at
 * once, so their cards need not wait for a refetch. The other entries keep their identity, so only
 * those models' cards render again.
 */
export function storeHeadroom(client: QueryClient, ...changed: HeadroomSummary[]): void {
  if (changed.length === 0) return;
  client.setQueryData(headroomQueryOptions().queryKey, (list) => {
    if (!list) return list;
    const fresh = new Map(changed.map((h) => [h.model, h]));
    const next = list.map((h) => {
      const headroom = fresh.get(h.model);
      fresh.delete(h.model);
      return headroom ?? h;
    });
    if (fresh.size === 0) return next;
    return [...next, ...fresh.values()].sort((a, b) => a.model.localeCompare(b.model));
  });
}

export function forgetHeadroom(client: QueryClient, model: string): void {
  client.setQueryData(headroomQueryOptions().queryKey, (list) => list?.filter((h) => h.model !== model));
}

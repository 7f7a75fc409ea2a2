import type { HeadroomSummary } from "@llmgw/domain";
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
 * Puts one model's headroom (a `model.changed` event carries it) into the list at once, so its card
 * need not wait for the list's next refetch. The other entries keep their identity, so only that
 * model's card renders again.
 */
export function storeHeadroom(client: QueryClient, headroom: HeadroomSummary): void {
  client.setQueryData(headroomQueryOptions().queryKey, (list) => {
    if (!list) return list;
    const index = list.findIndex((h) => h.model === headroom.model);
    if (index < 0) return [...list, headroom].sort((a, b) => a.model.localeCompare(b.model));
    return list.map((h, i) => (i === index ? headroom : h));
  });
}

export function forgetHeadroom(client: QueryClient, model: string): void {
  client.setQueryData(headroomQueryOptions().queryKey, (list) => list?.filter((h) => h.model !== model));
}

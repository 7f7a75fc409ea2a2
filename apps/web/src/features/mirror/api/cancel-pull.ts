import type { Pull } from "@llmgw/domain";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";
import { pullsQueryOptions, withPull } from "./get-pulls";

export const cancelPull = (id: string): Promise<Pull> =>
  answer(api.mirror.pulls[":id"].$delete({ param: { id } }));

export function useCancelPull() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: cancelPull,
    onSuccess: (pull) => client.setQueryData(pullsQueryOptions().queryKey, (list) => withPull(list, pull)),
  });
}

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { answer, api, segment } from "../../../lib/api";
import { tokensQueryOptions } from "./get-tokens";

export const revokeToken = (name: string): Promise<void> =>
  answer(api.tokens[":name"].$delete({ param: { name: segment(name) } }));

export function useRevokeToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: revokeToken,
    onSuccess: (_nothing, name) =>
      client.setQueryData(tokensQueryOptions().queryKey, (list) => list?.filter((t) => t.name !== name)),
  });
}

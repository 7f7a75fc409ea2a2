import { useMutation, useQueryClient } from "@tanstack/react-query";
import { revokeToken as fetchRevoke } from "../../../lib/api";
import { tokensQueryOptions } from "./get-tokens";

export const revokeToken = (name: string): Promise<void> => fetchRevoke(name);

export function useRevokeToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: revokeToken,
    onSuccess: (_nothing, name) =>
      client.setQueryData(tokensQueryOptions().queryKey, (list) => list?.filter((t) => t.name !== name)),
  });
}

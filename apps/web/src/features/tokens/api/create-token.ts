import type { CreatedToken, TokenCreate } from "@llmgw/contract";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";
import { tokensQueryOptions } from "./get-tokens";

export const createToken = (input: TokenCreate): Promise<CreatedToken> =>
  answer(api.tokens.$post({ json: input }));

/**
 * The list is fetched again rather than given the answer: the answer holds the secret, which must
 * not sit in the query cache.
 */
export function useCreateToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createToken,
    onSuccess: () => client.invalidateQueries({ queryKey: tokensQueryOptions().queryKey }),
  });
}

import type { TokenView } from "@llmgw/contract";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getTokens = (): Promise<TokenView[]> => answer(api.tokens.$get());

export const tokensQueryOptions = () => queryOptions({ queryKey: ["tokens"], queryFn: getTokens });

/** Only admins may list tokens: `enabled` keeps anyone else's page from asking for a 403. */
export const useTokens = (enabled = true) => useQuery({ ...tokensQueryOptions(), enabled });

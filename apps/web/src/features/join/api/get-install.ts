import type { JoinInfo } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getInstall = (): Promise<JoinInfo> => answer(api.install.$get());

/** The server's version and address change only with a restart: asked again after a few minutes. */
export const installQueryOptions = () =>
  queryOptions({ queryKey: ["install"], queryFn: getInstall, staleTime: 5 * 60_000 });

export const useInstall = (enabled = true) => useQuery({ ...installQueryOptions(), enabled });

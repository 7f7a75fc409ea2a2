import type { Replica } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getReplicas = (): Promise<Replica[]> => answer(api.fleet.replicas.$get());

export const replicasQueryOptions = () =>
  queryOptions({ queryKey: ["fleet", "replicas"], queryFn: getReplicas });

export const useReplicas = () => useQuery(replicasQueryOptions());

import type { Replica } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { listReplicas } from "../../../lib/api";

export const getReplicas = (): Promise<Replica[]> => listReplicas();

export const replicasQueryOptions = () =>
  queryOptions({ queryKey: ["fleet", "replicas"], queryFn: getReplicas });

export const useReplicas = () => useQuery(replicasQueryOptions());

import type { NodeView } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getNodes = (): Promise<NodeView[]> => answer(api.fleet.nodes.$get());

export const nodesQueryOptions = () => queryOptions({ queryKey: ["fleet", "nodes"], queryFn: getNodes });

export const useNodes = () => useQuery(nodesQueryOptions());

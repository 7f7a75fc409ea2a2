import type { NodeView } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { listNodes } from "../../../lib/api";

export const getNodes = (): Promise<NodeView[]> => listNodes();

export const nodesQueryOptions = () => queryOptions({ queryKey: ["fleet", "nodes"], queryFn: getNodes });

export const useNodes = () => useQuery(nodesQueryOptions());

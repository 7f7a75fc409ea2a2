import type { NodeView } from "@llmgw/domain";
import { type QueryClient, queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getNodes = (): Promise<NodeView[]> => answer(api.fleet.nodes.$get());

export const nodesQueryOptions = () => queryOptions({ queryKey: ["fleet", "nodes"], queryFn: getNodes });

export const useNodes = () => useQuery(nodesQueryOptions());

/** A node as the server answered a change to it: shown at once, before its event arrives. */
export function storeNode(client: QueryClient, node: NodeView): void {
  client.setQueryData(nodesQueryOptions().queryKey, (list) =>
    list?.map((held) => (held.name === node.name ? node : held)),
  );
}

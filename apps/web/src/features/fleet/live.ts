import type { QueryClient } from "@tanstack/react-query";
import { atMostEvery, type LiveStream } from "../../lib/live";
import { nodesQueryOptions } from "./api/get-nodes";
import { replicasQueryOptions } from "./api/get-replicas";

/**
 * Nodes and replicas are replaced as their events arrive. A node's usage by class is a sum over
 * its replicas, so a replica change also refetches the nodes (throttled) to keep the bars true.
 */
export function subscribeFleet(client: QueryClient, live: LiveStream): () => void {
  const refreshNodes = atMostEvery(250, () => {
    void client.invalidateQueries({ queryKey: nodesQueryOptions().queryKey });
  });
  const offs = [
    live.on("node.changed", (node) => {
      client.setQueryData(nodesQueryOptions().queryKey, (list) =>
        upsert(list, node, (n) => n.name === node.name),
      );
    }),
    live.on("node.removed", ({ name }) => {
      client.setQueryData(nodesQueryOptions().queryKey, (list) => list?.filter((n) => n.name !== name));
    }),
    live.on("replica.changed", (event) => {
      const { removed, ...replica } = event;
      client.setQueryData(replicasQueryOptions().queryKey, (list) =>
        removed
          ? list?.filter((r) => r.id !== replica.id)
          : upsert(list, replica, (r) => r.id === replica.id),
      );
      refreshNodes();
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}

function upsert<T>(list: T[] | undefined, item: T, same: (held: T) => boolean): T[] | undefined {
  if (!list) return list;
  return list.some(same) ? list.map((held) => (same(held) ? item : held)) : [...list, item];
}

import type { QueryClient } from "@tanstack/react-query";
import type { LiveStream } from "../../lib/live";
import { nodesQueryOptions } from "./api/get-nodes";
import { replicasQueryOptions } from "./api/get-replicas";

/**
 * Nodes and replicas are written into the cache in place as their events arrive: no event fetches
 * a list again. A node's bar is a sum over its replicas, and the server sends the node again
 * (`node.changed`, with its bar) whenever its replicas change, from a heartbeat or a scheduler run,
 * so a replica's event only moves the replica. Refetching the 2,000 nodes after replica events
 * (at most every 250 ms) downloaded megabytes a second on a busy fleet. After the stream was
 * offline the app refetches everything (provider.tsx).
 */
export function subscribeFleet(client: QueryClient, live: LiveStream): () => void {
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

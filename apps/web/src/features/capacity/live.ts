import type { QueryClient } from "@tanstack/react-query";
import { atMostEvery, type LiveStream } from "../../lib/live";
import { capacityQueryOptions } from "./api/get-capacity";
import { headroomQueryOptions } from "./api/get-headroom";

/**
 * Capacity and headroom are sums over the fleet and the catalogue, so any change to either can
 * move them; rather than recompute them here, refetch, at most four times a second.
 */
export function subscribeCapacity(client: QueryClient, live: LiveStream): () => void {
  const refresh = atMostEvery(250, () => {
    void client.invalidateQueries({ queryKey: capacityQueryOptions().queryKey });
    void client.invalidateQueries({ queryKey: headroomQueryOptions().queryKey });
  });
  const offs = [
    live.on("node.changed", refresh),
    live.on("replica.changed", refresh),
    live.on("model.changed", refresh),
    live.on("model.removed", refresh),
    live.on("quota.changed", refresh),
  ];
  return () => {
    for (const off of offs) off();
  };
}

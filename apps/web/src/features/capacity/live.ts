import type { QueryClient } from "@tanstack/react-query";
import { atMostEvery, type LiveStream } from "../../lib/live";
import { capacityQueryOptions } from "./api/get-capacity";
import { forgetHeadroom, headroomQueryOptions, storeHeadroom } from "./api/get-headroom";

/** How often at most a burst of fleet events refetches the sums: a card must move within a second. */
export const CAPACITY_REFRESH_MS = 250;

/**
 * Capacity and headroom are sums over the fleet and the catalogue, so any change to either can
 * move them; rather than recompute them here, refetch, throttled. A changed model's own headroom
 * comes with its event and is shown at once; the refetch brings what the change did to the others
 * (a class change moves what they may preempt, an owner change their quota).
 */
export function subscribeCapacity(client: QueryClient, live: LiveStream): () => void {
  const refresh = atMostEvery(CAPACITY_REFRESH_MS, () => {
    void client.invalidateQueries({ queryKey: capacityQueryOptions().queryKey });
    void client.invalidateQueries({ queryKey: headroomQueryOptions().queryKey });
  });
  const offs = [
    live.on("node.changed", refresh),
    live.on("node.removed", refresh),
    live.on("replica.changed", refresh),
    live.on("model.changed", (model) => {
      storeHeadroom(client, model.headroom);
      refresh();
    }),
    live.on("model.removed", ({ name }) => {
      forgetHeadroom(client, name);
      refresh();
    }),
    live.on("quota.changed", refresh),
  ];
  return () => {
    for (const off of offs) off();
  };
}

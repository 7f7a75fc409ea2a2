import type { QueryClient } from "@tanstack/react-query";
import { atMostEvery, type LiveStream } from "../../lib/live";
import { quotasQueryOptions, storeQuota } from "./api/get-quotas";

/** Limits and usage arrive as quota.changed; usage also moves with replicas, so refetch on those. */
export function subscribeQuotas(client: QueryClient, live: LiveStream): () => void {
  const refresh = atMostEvery(250, () => {
    void client.invalidateQueries({ queryKey: quotasQueryOptions().queryKey });
  });
  const offs = [
    live.on("quota.changed", (quota) => storeQuota(client, quota)),
    live.on("replica.changed", refresh),
    live.on("model.removed", refresh),
  ];
  return () => {
    for (const off of offs) off();
  };
}

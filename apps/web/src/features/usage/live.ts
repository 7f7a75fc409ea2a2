import type { QueryClient } from "@tanstack/react-query";
import { atMostEvery, type LiveStream } from "../../lib/live";
import { usagePrefix } from "./api/get-usage";

/** After the last traffic event: long enough for the processes' last once-a-second write. */
const SETTLE_MS = 2_500;

/**
 * There is no usage event: every process writes its counts to the store once a second. A model's
 * traffic event (each second while it has requests, from every process through the relay) says
 * new counts are on their way, and a replica's change moves replica time: either refetches the
 * reading on screen at most every 2 s, and once more when they stop, so the last second's counts
 * show too. Only a query someone shows is refetched.
 */
export function subscribeUsage(client: QueryClient, live: LiveStream): () => void {
  const refetch = () => void client.invalidateQueries({ queryKey: usagePrefix() });
  const often = atMostEvery(2_000, refetch);
  let settle: ReturnType<typeof setTimeout> | null = null;
  const changed = () => {
    often();
    if (settle !== null) clearTimeout(settle);
    settle = setTimeout(refetch, SETTLE_MS);
  };
  const offs = [live.on("model.traffic", changed), live.on("replica.changed", changed)];
  return () => {
    if (settle !== null) clearTimeout(settle);
    for (const off of offs) off();
  };
}

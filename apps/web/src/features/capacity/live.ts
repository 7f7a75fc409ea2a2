import type { HeadroomChange } from "@llmgw/domain";
import type { QueryClient } from "@tanstack/react-query";
import type { LiveStream } from "../../lib/live";
import { capacityQueryOptions } from "./api/get-capacity";
import { forgetHeadroom, storeHeadroom } from "./api/get-headroom";

/**
 * Capacity and headroom are sums over the fleet and the catalogue, so a heartbeat, a replica, a
 * class or a quota change can move the headroom of every model. The server says what moved in
 * `headroom.changed` (the models whose headroom changed, and the fleet's totals, at most every
 * 250 ms), and that is written into the cache in place: no fleet event fetches the lists again.
 * Refetching both per fleet event, with 500 models and a heartbeat a second, downloaded about
 * 1 MB a second and kept the page busy parsing what had not changed.
 *
 * A changed model's own headroom comes with its event and is shown at once; a removed model
 * leaves. After the stream was offline the app refetches everything (provider.tsx), since
 * `headroom.changed` is not replayed.
 */
export function subscribeCapacity(client: QueryClient, live: LiveStream): () => void {
  const offs = [
    live.on("headroom.changed", (change) => storeHeadroomChange(client, change)),
    live.on("model.changed", (model) => storeHeadroom(client, model.headroom)),
    live.on("model.removed", ({ name }) => forgetHeadroom(client, name)),
  ];
  return () => {
    for (const off of offs) off();
  };
}

function storeHeadroomChange(client: QueryClient, { models, capacity }: HeadroomChange): void {
  // Whether the scheduler runs is set at start, not a fleet sum: the event leaves it out.
  client.setQueryData(capacityQueryOptions().queryKey, (held) =>
    held ? { ...capacity, scheduler: held.scheduler } : held,
  );
  storeHeadroom(client, ...models);
}

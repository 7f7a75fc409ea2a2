import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useEffect, useState } from "react";
import { subscribeAudit } from "../features/audit/live";
import { subscribeCapacity } from "../features/capacity/live";
import { subscribeFleet } from "../features/fleet/live";
import { subscribeMirror } from "../features/mirror/live";
import { subscribeModels } from "../features/models/live";
import { subscribeQuotas } from "../features/quotas/live";
import { ApiFailure } from "../lib/api";
import { live } from "../lib/live";

function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // The event stream keeps the cache current; refetching on a timer would only add load.
        staleTime: 30_000,
        // A 4xx will not change by asking again; a dropped connection may.
        retry: (count, error) =>
          !(error instanceof ApiFailure && error.status >= 400 && error.status < 500) && count < 2,
      },
    },
  });
}

/** The query cache, and the one event stream that keeps it live, wired feature by feature. */
export function AppProvider({ children }: { children: ReactNode }) {
  const [client] = useState(createQueryClient);
  useEffect(() => {
    const offs = [
      subscribeModels(client, live),
      subscribeCapacity(client, live),
      subscribeFleet(client, live),
      subscribeMirror(client, live),
      subscribeQuotas(client, live),
      subscribeAudit(client, live),
      // Back from offline: the replay should cover the gap, but a refetch makes sure.
      live.onResync(() => void client.invalidateQueries()),
    ];
    const close = live.connect();
    return () => {
      close();
      for (const off of offs) off();
    };
  }, [client]);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { subscribeAudit } from "../features/audit/live";
import { subscribeCapacity } from "../features/capacity/live";
import { subscribeFleet } from "../features/fleet/live";
import { subscribeMirror } from "../features/mirror/live";
import { subscribeModels } from "../features/models/live";
import { subscribeQuotas } from "../features/quotas/live";
import { checkSession } from "../features/session/api/session";
import { subscribeUsage } from "../features/usage/live";
import { ApiFailure } from "../lib/api";
import { live } from "../lib/live";
import { sessionState, useSession } from "../lib/session";
import { followTraffic, traffic } from "../lib/traffic";

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

/**
 * The query cache, and the one event stream that keeps it live, wired feature by feature. The
 * stream is open only while someone is signed in; when it drops, the session is asked about, so a
 * session that ended while the page sat idle brings up the sign-in at once.
 */
export function AppProvider({ children }: { children: ReactNode }) {
  const [client] = useState(createQueryClient);
  const { status } = useSession();
  const signedIn = status === "signed-in" || status === "expired";

  useEffect(() => {
    void checkSession();
  }, []);

  useEffect(() => {
    const offs = [
      subscribeModels(client, live),
      subscribeCapacity(client, live),
      subscribeFleet(client, live),
      subscribeMirror(client, live),
      subscribeQuotas(client, live),
      subscribeAudit(client, live),
      subscribeUsage(client, live),
      followTraffic(traffic, live),
      // Back from offline: the replay should cover the gap, but a refetch makes sure.
      live.onResync(() => void client.invalidateQueries()),
      live.subscribeStatus(() => {
        if (live.status === "offline" && sessionState.get().status === "signed-in") {
          void checkSession({ probe: true });
        }
      }),
    ];
    return () => {
      for (const off of offs) off();
    };
  }, [client]);

  useEffect(() => {
    if (!signedIn) return;
    return live.connect();
  }, [signedIn]);

  // Signed in again after an expiry: the stream reconnects now rather than after its back-off.
  const wasExpired = useRef(false);
  useEffect(() => {
    if (status === "signed-in" && wasExpired.current) live.restart();
    wasExpired.current = status === "expired";
  }, [status]);

  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

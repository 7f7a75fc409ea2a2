import type { QueryClient } from "@tanstack/react-query";
import { atMostEvery, type LiveStream } from "../../lib/live";
import { auditPrefix } from "./api/get-audit";

/** Every change an operator makes is audited; refetch the log when one is announced. */
export function subscribeAudit(client: QueryClient, live: LiveStream): () => void {
  const refresh = atMostEvery(500, () => {
    void client.invalidateQueries({ queryKey: auditPrefix() });
  });
  const offs = [
    live.on("model.changed", refresh),
    live.on("model.removed", refresh),
    live.on("quota.changed", refresh),
  ];
  return () => {
    for (const off of offs) off();
  };
}

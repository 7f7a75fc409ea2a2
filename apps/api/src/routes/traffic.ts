import { contract } from "@llmgw/contract";
import type { Deps } from "../deps";
import { notFound } from "../errors";
import { type RecentTraffic, sumSeconds, TRAFFIC_HISTORY_SECONDS } from "../metrics/recentTraffic";
import { handlers } from "./handlers";

/**
 * A model's recent traffic (SPEC §7.7): what this process's ticker kept, and on a shared
 * PostgreSQL every process's, summed by second (an embedded store has no other process).
 */
export const trafficRoutes = (deps: Deps, recent: RecentTraffic) =>
  handlers(contract.traffic, {
    history: async (_c, { param }) => {
      const snap = await deps.world.snapshot();
      if (!snap.modelsByName.has(param.name)) throw notFound(`a model called ${param.name}`);
      const now = Math.floor(Date.now() / 1000);
      const own = recent.of(param.name, now);
      if (deps.store.kind !== "postgres") return own;
      const rows = await deps.store.traffic.of(param.name, now - TRAFFIC_HISTORY_SECONDS + 1);
      return { ...own, seconds: sumSeconds(rows.filter((r) => r.at <= now)) };
    },
  });

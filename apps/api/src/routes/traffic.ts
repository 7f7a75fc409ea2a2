import { contract } from "@llmgw/contract";
import type { Deps } from "../deps";
import type { RecentTraffic } from "../metrics/recentTraffic";
import { modelTraffic } from "../services/readModels";
import { handlers } from "./handlers";

/** A model's recent traffic (SPEC §7.7): this process's and, on a shared PostgreSQL, every one's. */
export const trafficRoutes = (deps: Deps, recent: RecentTraffic) =>
  handlers(contract.traffic, {
    history: (_c, { param }) => modelTraffic({ deps, recent, input: param }),
  });

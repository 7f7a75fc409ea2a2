import { contract } from "@llmgw/contract";
import type { Deps } from "../deps";
import { notFound } from "../errors";
import type { RecentTraffic } from "../metrics";
import { handlers } from "./handlers";

/** A model's recent traffic (SPEC §7.7), from what this process's ticker kept. */
export const trafficRoutes = (deps: Deps, recent: RecentTraffic) =>
  handlers(contract.traffic, {
    history: async (_c, { param }) => {
      const snap = await deps.world.snapshot();
      if (!snap.modelsByName.has(param.name)) throw notFound(`a model called ${param.name}`);
      return recent.of(param.name, Math.floor(Date.now() / 1000));
    },
  });

import { contract } from "@llmgw/contract";
import { MIRROR_LAYOUT } from "@llmgw/domain";
import type { Deps } from "../deps";
import { mirrorEntries, planOf } from "../services/mirrorPlans";
import { handlers } from "./handlers";

export const mirrorRoutes = (deps: Deps) =>
  handlers(contract.mirror, {
    list: () => mirrorEntries(deps),
    info: async () => ({
      dir: deps.mirror.dir,
      layout: MIRROR_LAYOUT,
      misplaced: await deps.mirror.misplaced(),
    }),
    plan: (_c, { param, query }) => planOf(deps, param.model, param.version, query.ctxPool),
  });

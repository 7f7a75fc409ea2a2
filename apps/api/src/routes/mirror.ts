import { contract } from "../contract";
import type { Deps } from "../deps";
import { mirrorEntries, planOf } from "../services/mirrorPlans";
import { handlers } from "./handlers";

export const mirrorRoutes = (deps: Deps) =>
  handlers(contract.mirror, {
    list: () => mirrorEntries(deps),
    plan: (_c, { param, query }) => planOf(deps, param.model, param.version, query.ctxPool),
  });

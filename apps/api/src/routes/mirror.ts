import { contract } from "@llmgw/contract";
import type { Deps } from "../deps";
import { cancelPull } from "../services/cancelPull";
import type { ControlFace } from "../services/control";
import { dryRunPull } from "../services/dryRunPull";
import { getPull, listPulls } from "../services/listPulls";
import { mirrorEntries, mirrorInfo, planOf } from "../services/mirrorPlans";
import { startPull } from "../services/startPull";
import { handlers } from "./handlers";

export const mirrorRoutes = (deps: Deps) =>
  handlers(contract.mirror, {
    list: () => mirrorEntries({ deps }),
    info: () => mirrorInfo({ deps }),
    plan: (_c, { param, query }) => planOf({ deps, input: { ...param, ctxPool: query.ctxPool } }),
  });

export const pullRoutes = (deps: Deps, control: ControlFace) =>
  handlers(contract.pulls, {
    create: async (c, { body }) =>
      body.dryRun
        ? c.json(await dryRunPull({ deps, input: body, signal: c.req.raw.signal }), 200)
        : c.json(
            await startPull({ deps, control, input: body, by: c.get("actor"), signal: c.req.raw.signal }),
            202,
          ),
    list: () => listPulls({ deps }),
    get: (_c, { param }) => getPull({ deps, input: param }),
    cancel: (c, { param }) => cancelPull({ deps, control, input: param, by: c.get("actor") }),
  });

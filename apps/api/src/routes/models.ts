import type { BenchSend } from "@llmgw/client/bench";
import { contract } from "@llmgw/contract";
import type { Deps } from "../deps";
import type { ControlFace } from "../services/control";
import { createModel } from "../services/createModel";
import { patchModel } from "../services/patchModel";
import { getModel, listModels, modelHeadroom } from "../services/readModels";
import { removeModel } from "../services/removeModel";
import { rolloutAction } from "../services/rolloutAction";
import { type BenchRuns, startBench } from "../services/startBench";
import { storeBench } from "../services/storeBench";
import { target } from "../services/target";
import { wakeModel } from "../services/wakeModel";
import { handlers } from "./handlers";
import { etagOf, taggedStale, versionAsked } from "./versions";

/** The running benches, and the request path a bench sends to as the operator who asked. */
export type BenchDeps = { runs: BenchRuns; sendAs: (by: string) => BenchSend };

export const modelRoutes = (deps: Deps, control: ControlFace, bench: BenchDeps) =>
  handlers(contract.models, {
    list: () => listModels({ deps }),
    create: async (c, { body }) => {
      const view = await createModel({ deps, input: body, by: c.get("actor") });
      c.header("ETag", etagOf(view));
      c.header("Location", `/api/v1/models/${encodeURIComponent(view.name)}`);
      return view;
    },
    get: async (c, { param }) => {
      const view = await getModel({ deps, input: param });
      c.header("ETag", etagOf(view));
      return view;
    },
    patch: async (c, { param, body }) => {
      const version = versionAsked(c.req.header("if-match"));
      const view = await patchModel({
        deps,
        input: { name: param.name, version, patch: body },
        by: c.get("actor"),
      }).catch(taggedStale);
      c.header("ETag", etagOf(view));
      return view;
    },
    remove: async (c, { param }) => {
      await removeModel({ deps, input: param, by: c.get("actor") });
      return null;
    },
    headroom: (_c, { param }) => modelHeadroom({ deps, input: param }),
    target: (c, { param, body }) =>
      target({
        deps,
        control,
        input: { name: param.name, replicas: body.replicas, dryRun: body.dryRun },
        by: c.get("actor"),
      }).catch(taggedStale),
    rollout: async (c, { param, body }) =>
      rolloutAction({ deps, input: { name: param.name, action: body.action }, by: c.get("actor") }),
    wake: async (c, { param }) =>
      wakeModel({ deps, control, input: { name: param.name }, by: c.get("actor") }),
    bench: async (c, { param, body }) =>
      startBench({
        deps,
        runs: bench.runs,
        send: bench.sendAs(c.get("actor")),
        input: { name: param.name, request: body },
        by: c.get("actor"),
      }),
    putBench: async (c, { param, body }) =>
      storeBench({ deps, input: { name: param.name, result: body }, by: c.get("actor") }),
  });

import { contract } from "@llmgw/contract";
import type { Deps } from "../deps";
import { forgetNode } from "../services/forgetNode";
import { drainNode, resumeNode } from "../services/nodeState";
import { handlers } from "./handlers";

export const fleetRoutes = (deps: Deps) =>
  handlers(contract.fleet, {
    nodes: async () => {
      const snap = await deps.world.snapshot();
      return snap.nodes.map((n) => deps.world.nodeView(snap, n));
    },
    replicas: async () => (await deps.world.snapshot()).replicas,
    drain: (c, { param }) => drainNode({ deps, input: param, by: c.get("actor") }),
    resume: (c, { param }) => resumeNode({ deps, input: param, by: c.get("actor") }),
    forget: async (c, { param }) => {
      await forgetNode({ deps, input: param, by: c.get("actor") });
      return null;
    },
  });

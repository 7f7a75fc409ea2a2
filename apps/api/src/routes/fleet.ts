import { contract } from "@llmgw/contract";
import type { Deps } from "../deps";
import { forgetNode } from "../services/forgetNode";
import { drainNode, resumeNode } from "../services/nodeState";
import { listNodes, listReplicas } from "../services/readFleet";
import { handlers } from "./handlers";

export const fleetRoutes = (deps: Deps) =>
  handlers(contract.fleet, {
    nodes: () => listNodes({ deps }),
    replicas: () => listReplicas({ deps }),
    drain: (c, { param }) => drainNode({ deps, input: param, by: c.get("actor") }),
    resume: (c, { param }) => resumeNode({ deps, input: param, by: c.get("actor") }),
    forget: async (c, { param }) => {
      await forgetNode({ deps, input: param, by: c.get("actor") });
      return null;
    },
  });

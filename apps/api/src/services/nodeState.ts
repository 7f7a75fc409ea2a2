import type { NodeView } from "@llmgw/domain";
import type { Deps } from "../deps";
import { notFound } from "../errors";
import { commit } from "./commit";

type NodeInput = { deps: Deps; input: { name: string }; by: string };

/** Places nothing new on a node; the scheduler moves its replicas away (SPEC §3 "Fleet"). Audited. */
export const drainNode = ({ deps, input, by }: NodeInput) => setState(deps, input.name, "draining", by);

/** Lets the scheduler place on a drained node again. Audited. */
export const resumeNode = ({ deps, input, by }: NodeInput) => setState(deps, input.name, "ready", by);

async function setState(
  deps: Deps,
  name: string,
  state: "ready" | "draining",
  by: string,
): Promise<NodeView> {
  const snap = await deps.world.snapshot();
  const node = snap.nodesByName.get(name);
  if (!node) throw notFound(`a node called ${name}`);
  const at = deps.now().toISOString();
  return commit(deps, async (tx) => {
    const stored = await tx.nodes.upsert({ ...deps.world.live(node), state });
    await tx.audit.append([
      {
        at,
        by,
        action: state === "draining" ? "drain" : "resume",
        target: name,
        field: "state",
        before: node.state,
        after: state,
      },
    ]);
    const view = deps.world.nodeView(snap, stored);
    return { result: view, events: [{ type: "node.changed", data: view }] };
  });
}

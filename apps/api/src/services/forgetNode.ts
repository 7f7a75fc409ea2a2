import type { ChangeEvent } from "@llmgw/domain";
import type { Deps } from "../deps";
import { AppError, notFound } from "../errors";
import { commit } from "./commit";

/**
 * Forgets a `down` node and its replicas (SPEC §3, §4): a machine gone for good no longer fills
 * the fleet's lists and totals. A live node (ready or draining) is refused, since its agent would
 * report it again at its next beat: stop the agent first. Audited; announced as the node's and
 * its replicas' removal. The node's agent token keeps its binding: the same agent may come back.
 */
export async function forgetNode({ deps, input, by }: { deps: Deps; input: { name: string }; by: string }) {
  const snap = await deps.world.snapshot();
  const node = snap.nodesByName.get(input.name);
  if (!node) throw notFound(`a node called ${input.name}`);
  if (node.state !== "down") {
    throw new AppError({
      code: "conflict",
      message: `${input.name} is ${node.state}: only a down node can be forgotten; stop its agent, and once it is down, delete it`,
    });
  }
  const at = deps.now().toISOString();
  await commit(deps, async (tx) => {
    // Read again under the transaction: a beat since the snapshot may have brought it back.
    const stored = await tx.nodes.get(input.name);
    if (stored?.state !== "down")
      throw new AppError({ code: "conflict", message: `${input.name} has just reported again` });
    const replicas = await tx.replicas.removeByNode(input.name);
    await tx.nodes.remove(input.name);
    await tx.audit.append([
      { at, by, action: "node.delete", target: input.name, field: "state", before: "down", after: null },
    ]);
    const events: ChangeEvent[] = replicas.map((r) => ({
      type: "replica.changed",
      data: { ...r, removed: true },
    }));
    events.push({ type: "node.removed", data: { name: input.name } });
    return { result: null, events };
  });
  deps.world.lastSeen.delete(input.name);
}

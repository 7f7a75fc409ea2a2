import type { Node } from "@llmgw/domain";
import type { Deps } from "../deps";
import { withNodes } from "../world";
import { commit } from "./commit";

/**
 * SPEC §1: a node with no heartbeat for 3 × the heartbeat interval is `down`. Its replicas are
 * kept (they still hold what they held until an agent says otherwise); it comes back `ready` on
 * its next beat. Returns the nodes it marked.
 */
export async function markSilentNodesDown(deps: Deps): Promise<string[]> {
  const snap = await deps.world.snapshot();
  const cutoff = deps.now().getTime() - 3 * deps.config.heartbeatSeconds * 1000;
  const silent = snap.nodes.filter(
    (n) => n.state !== "down" && Date.parse(deps.world.live(n).lastSeen) < cutoff,
  );
  if (silent.length === 0) return [];
  await commit(
    deps,
    async (tx) => {
      const events = [];
      const downs: Node[] = [];
      for (const node of silent) {
        const down = await tx.nodes.upsert({ ...deps.world.live(node), state: "down" });
        downs.push(down);
        events.push({ type: "node.changed" as const, data: deps.world.nodeView(snap, down) });
      }
      return { result: downs, events };
    },
    // The nodes' rows changed and nothing else: patched into the picture, as a heartbeat is, rather
    // than the whole fleet read again (on a loaded server, silent nodes would otherwise make every
    // read after them a reload).
    (downs) => (current) =>
      withNodes(
        current,
        downs.map((node) => ({ node, replicas: current.replicasByNode.get(node.name) ?? [] })),
      ),
  );
  return silent.map((n) => n.name);
}

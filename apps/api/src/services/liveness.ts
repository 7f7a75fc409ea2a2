import type { Deps } from "../deps";
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
  await commit(deps, async (tx) => {
    const events = [];
    for (const node of silent) {
      const down = await tx.nodes.upsert({ ...deps.world.live(node), state: "down" });
      events.push({ type: "node.changed" as const, data: deps.world.nodeView(snap, down) });
    }
    return { result: undefined, events };
  });
  return silent.map((n) => n.name);
}

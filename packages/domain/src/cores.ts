import type { Node } from "./schemas";

/**
 * The cores a replica should ask for (SPEC §2.2.6): half the smallest node it fits on, so two
 * replicas share any node it fits and one leaves room for the system. Nodes that report no
 * memory may fit (older agents); nodes that report no cores say nothing to halve. 0 when no
 * ready node is left to go by: a blank the operator fills, not a guess.
 */
export function suggestCores(
  nodes: readonly Pick<Node, "state" | "memoryGB" | "cpuCount">[],
  minMemoryGB: number,
): number {
  let smallest = 0;
  for (const n of nodes) {
    if (n.state !== "ready" || n.cpuCount <= 0) continue;
    if (n.memoryGB !== 0 && n.memoryGB < minMemoryGB) continue;
    if (smallest === 0 || n.cpuCount < smallest) smallest = n.cpuCount;
  }
  return smallest === 0 ? 0 : Math.max(1, Math.floor(smallest / 2));
}

import type { Replica } from "./schemas";

/**
 * A replica holds resources in every state but `failed`: the one rule for what a node's free room,
 * an owner's quota and the scheduler's picture of a node subtract.
 */
export function holdsResources(replica: Pick<Replica, "state">): boolean {
  return replica.state !== "failed";
}

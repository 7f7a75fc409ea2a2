import {
  type Capacity,
  type Class,
  capacityByClass,
  type HeadroomSummary,
  type NodeView,
  type Replica,
} from "@llmgw/domain";
import type { Body } from "../body";
import type { Deps } from "../deps";

// What the API answers about the fleet and its capacity, read from the snapshot: the routes read
// no world themselves.

/** `GET /nodes`: every node as the fleet lists it, with its freshest lastSeen. */
export async function listNodes({ deps }: { deps: Pick<Deps, "world"> }): Promise<NodeView[]> {
  const snap = await deps.world.snapshot();
  return snap.nodes.map((n) => deps.world.nodeView(snap, n));
}

/** `GET /replicas`: every replica, the agents' own included. */
export async function listReplicas({ deps }: { deps: Pick<Deps, "world"> }): Promise<Replica[]> {
  return (await deps.world.snapshot()).replicas;
}

/** `GET /headroom`: every model's headroom summary, serialised once per picture. */
export async function listHeadroom({
  deps,
}: {
  deps: Pick<Deps, "world">;
}): Promise<Body<HeadroomSummary[]>> {
  return (await deps.world.snapshot()).headroomBody;
}

/** `GET /capacity`: the fleet by priority class, and whether this process places replicas. */
export async function capacityOfClasses({
  deps,
}: {
  deps: Pick<Deps, "world" | "config">;
}): Promise<Capacity & { scheduler: boolean }> {
  return { ...capacityByClass((await deps.world.snapshot()).index), scheduler: deps.config.scheduler };
}

/** `GET /classes`: the priority classes. */
export async function listClasses({ deps }: { deps: Pick<Deps, "world"> }): Promise<Class[]> {
  return (await deps.world.snapshot()).classes;
}

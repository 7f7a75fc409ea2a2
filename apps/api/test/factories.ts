import type { Heartbeat, ModelInput, Profile } from "@llmgw/domain";
import { makeModel, makeNode } from "@llmgw/domain/testing";

// What clients send, built from the domain's factories: every call makes a fresh name or id, so
// no test leans on another's. Override what the test is about.

let sequence = 0;
const next = (prefix: string) => `${prefix}-${++sequence}`;

type NodeFacts = Heartbeat["node"];
type ReplicaReport = NonNullable<Heartbeat["replicas"]>[number];

/**
 * A `POST /models` body: a runtime model with one `cpu` profile needing 8 GB and 4 cores, always
 * one replica. `need` overrides that profile's fields.
 */
export function modelInput(overrides: Partial<ModelInput> & { need?: Partial<Profile> } = {}): ModelInput {
  const { need, ...rest } = overrides;
  const { origin, version, updatedAt, updatedBy, ...input } = makeModel(need ? { need } : {});
  return { ...input, ...rest };
}

/** A `POST /agents/heartbeat` body: a 64 GB, 16-core node with no GPU and no replicas. */
export function heartbeat(overrides: { node?: Partial<NodeFacts>; replicas?: ReplicaReport[] } = {}): {
  node: NodeFacts;
  replicas: ReplicaReport[];
} {
  const { state, lastSeen, ...facts } = makeNode();
  return { node: { ...facts, ...overrides.node }, replicas: overrides.replicas ?? [] };
}

/** One replica as an agent reports it: ready, of `model`. */
export function replicaReport(
  overrides: Partial<ReplicaReport> & Pick<ReplicaReport, "model">,
): ReplicaReport {
  return { id: next("replica"), state: "ready", ...overrides };
}

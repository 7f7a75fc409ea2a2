import {
  type Headroom,
  headroom,
  headroomSummary,
  type Model,
  type ModelSummary,
  type ModelView,
  modeOf,
} from "@llmgw/domain";
import type { Snapshot } from "./snapshot";

// What the API shows of a model, from a snapshot: with every node's headroom line (one model) or
// without (lists and events).

/**
 * A model as the API shows one model, its headroom with every node's line; works for a model the
 * snapshot does not hold yet (a create, a patch).
 */
export function modelView(snap: Snapshot, model: Model): ModelView {
  const room = headroomOf(snap, model);
  return {
    ...model,
    mode: modeOf(model.scaling),
    // An agent's own replica of this model is not the model's (SPEC §4): the fleet lists it.
    replicas: (snap.replicasByModel.get(model.name) ?? []).filter((r) => !r.unmanaged),
    headroom: room,
    quota: { owner: model.owner, remaining: room.quotaRemaining },
  };
}

/** A model as lists and `model.changed` carry it: `modelView` without the per-node lines. */
export function modelSummary(snap: Snapshot, model: Model): ModelSummary {
  const room = headroomOf(snap, model);
  return {
    ...model,
    mode: modeOf(model.scaling),
    replicas: (snap.replicasByModel.get(model.name) ?? []).filter((r) => !r.unmanaged),
    headroom: headroomSummary(room),
    quota: { owner: model.owner, remaining: room.quotaRemaining },
  };
}

function headroomOf(snap: Snapshot, model: Model): Headroom {
  return snap.modelsByName.get(model.name) === model
    ? (snap.headroom.get(model.name) ?? headroom(model, snap.index, snap.quotas))
    : headroom(model, snap.index, snap.quotas);
}

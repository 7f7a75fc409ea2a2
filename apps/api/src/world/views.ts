import {
  type AutoscaleView,
  type Headroom,
  headroom,
  headroomSummary,
  isAutoscaled,
  type Model,
  type ModelSummary,
  type ModelView,
  modeOf,
  quietAutoscale,
  revisionOf,
} from "@llmgw/domain";
import { rolloutOf } from "../rollout/view";
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
    autoscale: autoscaleOf(snap, model),
    revision: revisionOf(model),
    rollout: rolloutOf(snap, model),
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
    autoscale: autoscaleOf(snap, model),
    revision: revisionOf(model),
    rollout: rolloutOf(snap, model),
  };
}

/**
 * The autoscaler's numbers for a model that is autoscaled as it stands now (an edit may have
 * ended it, or begun it a moment ago: then its quiet line until the next tick).
 */
function autoscaleOf(snap: Snapshot, model: Model): AutoscaleView | null {
  if (!isAutoscaled(model.scaling)) return null;
  return snap.autoscale.get(model.name) ?? quietAutoscale(model);
}

function headroomOf(snap: Snapshot, model: Model): Headroom {
  return snap.modelsByName.get(model.name) === model
    ? (snap.headroom.get(model.name) ?? headroom(model, snap.index, snap.quotas))
    : headroom(model, snap.index, snap.quotas);
}

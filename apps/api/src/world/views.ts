import {
  type AutoscaleView,
  type FleetIndex,
  type Headroom,
  headroom,
  headroomSummary,
  isAutoscaled,
  type Model,
  type ModelSummary,
  type ModelView,
  modeOf,
  type Quota,
  quietAutoscale,
  type Replica,
  revisionOf,
} from "@llmgw/domain";
import { rolloutOf } from "../rollout/view";

// What the API shows of a model, from a snapshot: with every node's headroom line (one model) or
// without (lists and events).

/**
 * What a view reads of the world's picture: a `Snapshot` (snapshot.ts) is one. Named here rather
 * than imported, so the snapshot can build its list from these views without a circle.
 */
export type ViewSource = {
  readonly modelsByName: ReadonlyMap<string, Model>;
  readonly replicasByModel: ReadonlyMap<string, readonly Replica[]>;
  readonly autoscale: ReadonlyMap<string, AutoscaleView>;
  readonly headroom: ReadonlyMap<string, Headroom>;
  readonly index: FleetIndex;
  readonly quotas: readonly Quota[];
};

/**
 * A model as the API shows one model, its headroom with every node's line; works for a model the
 * snapshot does not hold yet (a create, a patch).
 */
export function modelView(snap: ViewSource, model: Model): ModelView {
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
export function modelSummary(snap: ViewSource, model: Model): ModelSummary {
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
function autoscaleOf(snap: ViewSource, model: Model): AutoscaleView | null {
  if (!isAutoscaled(model.scaling)) return null;
  return snap.autoscale.get(model.name) ?? quietAutoscale(model);
}

function headroomOf(snap: ViewSource, model: Model): Headroom {
  return snap.modelsByName.get(model.name) === model
    ? (snap.headroom.get(model.name) ?? headroom(model, snap.index, snap.quotas))
    : headroom(model, snap.index, snap.quotas);
}

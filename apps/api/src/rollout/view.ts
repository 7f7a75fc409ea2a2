import { type Model, type Replica, type RolloutView, replicaRevision, revisionOf } from "@llmgw/domain";
import { rolloutRequests } from "./traffic";

/**
 * SPEC §11.5: the model's last rollout with its live numbers: replicas of each revision still
 * running (not stopping), and requests sent to each since it began, over every process.
 */
export function rolloutOf(
  snap: { readonly replicasByModel: ReadonlyMap<string, readonly Replica[]> },
  model: Model,
): RolloutView | null {
  const rollout = model.rollout;
  if (!rollout) return null;
  const current = revisionOf(model);
  // While it runs the old revision is `from`; once rolled back the model is at `from` again and
  // the replicas being stopped are `to`'s.
  const newRevision = rollout.to;
  let old = 0;
  let fresh = 0;
  for (const r of snap.replicasByModel.get(model.name) ?? []) {
    if (r.unmanaged || r.state === "stopping" || r.state === "failed") continue;
    const revision = replicaRevision(r);
    if (revision === newRevision) fresh += 1;
    else if (revision !== current || revision === rollout.from) old += 1;
  }
  return {
    ...rollout,
    replicas: { old, new: fresh },
    requests: rolloutRequests(model.name, rollout.from, rollout.to),
  };
}

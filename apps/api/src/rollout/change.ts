import type { ChangeEvent, Model, ModelView } from "@llmgw/domain";
import { VersionConflict } from "@llmgw/store";
import type { Deps } from "../deps";
import { commit } from "../services/commit";
import { noSuchModel } from "../services/modelNamed";
import { modelSummary, modelView, withModel } from "../world";
import { tellRollout } from "./audit";

/**
 * Stores a change of a model's rollout state (SPEC §11.5): the model as `change` makes it, a new
 * version, one audit entry (action `rollout`) and a `model.changed` and a `model.rollout` event.
 * `change` sees the model as stored; null leaves it alone (null is returned then). A write that
 * loses a race with an edit is judged again against the edit.
 */
export async function changeRollout(
  deps: Deps,
  name: string,
  by: string,
  change: (model: Model) => Model | null,
): Promise<ModelView | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const current = await deps.store.models.get(name);
    // Read from the store, not the snapshot: a retry after a lost race must see the edit that won.
    if (!current) throw noSuchModel(name);
    const next = change(current);
    if (!next) return null;
    const at = deps.now().toISOString();
    let stored: Model | null = null;
    try {
      return await commit(
        deps,
        async (tx) => {
          stored = await tx.models.update(name, current.version, {
            ...next,
            version: current.version + 1,
            updatedAt: at,
            updatedBy: by,
          });
          if (!stored) throw noSuchModel(name);
          const snap = await deps.world.snapshot();
          const view = modelView(snap, stored);
          const events: ChangeEvent[] = [{ type: "model.changed", data: modelSummary(snap, stored) }];
          if (view.rollout) events.push(await tellRollout(tx, name, view.rollout, by, stored.version));
          return { result: view, events };
        },
        () => {
          const model = stored;
          return model ? (snap) => withModel(snap, model) : null;
        },
      );
    } catch (err) {
      if (!(err instanceof VersionConflict)) throw err;
    }
  }
  return null;
}

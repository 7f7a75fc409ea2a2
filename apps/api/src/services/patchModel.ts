import {
  applyPatch,
  type ChangeEvent,
  changesRevision,
  type Model,
  type ModelPatch,
  type ModelView,
  PatchError,
  startRollout,
} from "@llmgw/domain";
import { NameTaken, VersionConflict } from "@llmgw/store";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { tellRollout } from "../rollout/audit";
import { modelSummary, modelView, withModel } from "../world";
import { commit } from "./commit";
import { nameTaken } from "./createModel";
import { modelNamed, noSuchModel } from "./modelNamed";
import { admit, checkClass, lockOwner } from "./quotaAdmission";

/**
 * SPEC §2.7: applies only what changed, in one transaction, one audit entry and one event per
 * changed field. `version` is the one the change was judged against (the route's If-Match): a stale
 * one is a 412 carrying the model as it is now and what changed since.
 */
export async function patchModel({
  deps,
  input,
  by,
}: {
  deps: Deps;
  input: { name: string; version: number; patch: ModelPatch };
  by: string;
}): Promise<ModelView> {
  const { name, version: ifMatch, patch } = input;
  const snap = await deps.world.snapshot();
  const model = modelNamed(snap, name);
  refuseDeclared(model);
  if (model.version !== ifMatch) throw await stale(deps, model, ifMatch);

  const { next: edited, changes } = applyChecked(model, patch);
  const at = deps.now().toISOString();
  // SPEC §11.1: a new source or new args is a new revision, rolled out; nothing else is.
  const rolls = changesRevision(changes);
  if (patch.rollout !== undefined && !rolls) {
    throw new AppError({
      code: "bad_request",
      message: "a canary needs a change of source or args to roll out",
      fields: { rollout: "a canary needs a change of source or args to roll out" },
    });
  }
  const next = rolls
    ? startRollout(model, edited, { at, by, canaryPercent: patch.rollout?.canaryPercent ?? null })
    : edited;
  if (changes.length === 0) return modelView(snap, model);
  if (patch.class !== undefined) checkClass(snap, next.class);

  let stored: Model | null = null;
  try {
    return await commit(
      deps,
      async (tx) => {
        // The owner's lock before the row; the quota after the compare-and-set, so that a stale
        // version is a 412 before it could be a 409.
        await lockOwner(tx, model, next);
        stored = await tx.models.update(name, ifMatch, {
          ...next,
          version: ifMatch + 1,
          updatedAt: at,
          updatedBy: by,
        });
        if (!stored) throw noSuchModel(name);
        await admit(tx, model, next);
        await tx.audit.append(
          changes.map((c) => ({
            at,
            by,
            action: "update",
            target: name,
            field: c.field,
            ...values(c),
            version: ifMatch + 1,
          })),
        );
        const view = modelView(snap, stored);
        const card = modelSummary(snap, stored);
        // One announcement per changed field, as the audit has it; each carries the whole card.
        const events: ChangeEvent[] = changes.map(() => ({ type: "model.changed" as const, data: card }));
        if (rolls && view.rollout) events.push(await tellRollout(tx, name, view.rollout, by, ifMatch + 1));
        return { result: view, events };
      },
      // The model put into the picture the change was judged against, if nothing else changed it.
      () => {
        const model = stored;
        return model ? (snap) => withModel(snap, model) : null;
      },
    );
  } catch (err) {
    if (err instanceof VersionConflict) throw await stale(deps, err.current, ifMatch);
    if (err instanceof NameTaken) throw nameTaken(err, next);
    throw err;
  }
}

function values(change: { before: unknown; after: unknown }) {
  return { before: change.before ?? null, after: change.after ?? null };
}

function applyChecked(model: Model, patch: ModelPatch) {
  try {
    return applyPatch(model, patch);
  } catch (err) {
    if (err instanceof PatchError)
      throw new AppError({
        code: "bad_request",
        message: err.message,
        fields: { [err.field]: err.message },
      });
    throw err;
  }
}

export function refuseDeclared(model: Model): void {
  if (model.origin === "config") {
    throw new AppError({
      code: "declared_in_config",
      message: `${model.name} is declared in the configuration file; edit it there (the API cannot change it)`,
    });
  }
}

async function stale(deps: Deps, current: Model, expected: number): Promise<AppError> {
  // The stored row, not the snapshot: another process may have written it a moment ago. Read on
  // its own, so a refusal does not make every other reader load the whole fleet again.
  const fresh = (await deps.store.models.get(current.name)) ?? current;
  // Behind the store (another process's write not relayed yet): the client's next read must not be.
  if ((await deps.world.snapshot()).modelsByName.get(current.name)?.version !== fresh.version) {
    deps.world.invalidate();
  }
  const snap = await deps.world.snapshot();
  const entries = await deps.store.audit.list({ model: current.name, limit: 50 });
  const changedSince = entries.filter((e) => (e.version ?? 0) > expected);
  return new AppError({
    code: "precondition_failed",
    message: `${current.name} changed meanwhile (you had version ${expected}, it is now ${fresh.version})`,
    extra: { current: modelView(snap, fresh), changedSince },
  });
}

import type { Deps } from "../deps";
import { notFound } from "../errors";
import { withoutModel } from "../world";
import { commit } from "./commit";
import { refuseDeclared } from "./patchModel";

/** Removes a runtime model; its replicas, if agents still report them, count as unmanaged. */
export async function removeModel({
  deps,
  name,
  by,
}: {
  deps: Deps;
  name: string;
  by: string;
}): Promise<void> {
  const snap = await deps.world.snapshot();
  const model = snap.modelsByName.get(name);
  if (!model) throw notFound(`a model called ${name}`);
  refuseDeclared(model);
  const at = deps.now().toISOString();
  await commit(
    deps,
    async (tx) => {
      if (!(await tx.models.remove(name))) throw notFound(`a model called ${name}`);
      await tx.audit.append([
        { at, by, action: "delete", target: name, field: null, before: model, after: null },
      ]);
      return { result: undefined, events: [{ type: "model.removed", data: { name } }] };
    },
    () => (snap) => withoutModel(snap, name),
  );
}

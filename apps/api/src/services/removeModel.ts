import type { Deps } from "../deps";
import { withoutModel } from "../world";
import { commit } from "./commit";
import { modelNamed, noSuchModel } from "./modelNamed";
import { refuseDeclared } from "./patchModel";

/** Removes a runtime model; its replicas, if agents still report them, count as unmanaged. */
export async function removeModel({
  deps,
  input,
  by,
}: {
  deps: Deps;
  input: { name: string };
  by: string;
}): Promise<void> {
  const { name } = input;
  const model = modelNamed(await deps.world.snapshot(), name);
  refuseDeclared(model);
  const at = deps.now().toISOString();
  await commit(
    deps,
    async (tx) => {
      if (!(await tx.models.remove(name))) throw noSuchModel(name);
      await tx.audit.append([
        { at, by, action: "delete", target: name, field: null, before: model, after: null },
      ]);
      return { result: undefined, events: [{ type: "model.removed", data: { name } }] };
    },
    () => (snap) => withoutModel(snap, name),
  );
}

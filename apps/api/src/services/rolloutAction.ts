import { type ModelView, type RolloutAction, rollBack, rolloutActive } from "@llmgw/domain";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { changeRollout } from "../rollout/change";
import { modelNamed } from "./modelNamed";
import { refuseDeclared } from "./patchModel";

/**
 * SPEC §11.3: `promote` lets a held canary go on as a rollout; `abort` undoes a running rollout as
 * a rollback does. 409 `no_rollout` when there is none to act on.
 */
export async function rolloutAction({
  deps,
  input,
  by,
}: {
  deps: Deps;
  input: { name: string; action: RolloutAction["action"] };
  by: string;
}): Promise<ModelView> {
  const { name, action } = input;
  const model = modelNamed(await deps.world.snapshot(), name);
  refuseDeclared(model);
  const noRollout = () =>
    new AppError({
      code: "no_rollout",
      message:
        action === "promote"
          ? `${name} has no canary held to promote`
          : `${name} has no rollout running to abort`,
    });
  const view = await changeRollout(deps, name, by, (stored) => {
    const rollout = stored.rollout;
    if (!rolloutActive(rollout)) throw noRollout();
    const at = deps.now().toISOString();
    if (action === "promote") {
      if (rollout.state !== "canary") throw noRollout();
      return { ...stored, rollout: { ...rollout, state: "rolling", at } };
    }
    return rollBack(stored, `aborted by ${by}`, at);
  });
  if (!view) throw noRollout();
  return view;
}

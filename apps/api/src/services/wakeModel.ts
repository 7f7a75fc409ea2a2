import { modeOf } from "@llmgw/domain";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import type { ControlFace } from "./control";
import { modelNamed } from "./modelNamed";

/**
 * An operator's wake (`POST /models/:name/wake`): what a request through the gateway does for an
 * on-demand model, asked for by name. Only an on-demand model wakes; the others are 409.
 */
export async function wakeModel({
  deps,
  control,
  input,
}: {
  deps: Deps;
  control: ControlFace;
  input: { name: string };
  by: string;
}) {
  const snap = await deps.world.snapshot();
  const model = modelNamed(snap, input.name);
  if (modeOf(model.scaling) !== "ondemand") {
    throw new AppError({
      code: "conflict",
      message: `${model.name} is not an on-demand model (it is ${modeOf(model.scaling)})`,
    });
  }
  const at = deps.now();
  await control.wake(model, at);
  return { model: model.name, wokenAt: at.toISOString() };
}

import { modeOf, type TargetResult, victimsFor } from "@llmgw/domain";
import type { Deps } from "../deps";
import { notFound } from "../errors";
import { patchModel, refuseDeclared } from "./patchModel";

/**
 * `POST /models/:name/target`: whether N replicas fit on free capacity, need preemption (naming
 * the victims by model, node and class), or are refused with the largest target that fits — the
 * same numbers the capacity card shows. Without dryRun a target that is not refused is applied.
 */
export async function target({
  deps,
  name,
  replicas,
  dryRun,
  by,
}: {
  deps: Deps;
  name: string;
  replicas: number;
  dryRun: boolean;
  by: string;
}): Promise<TargetResult> {
  const snap = await deps.world.snapshot();
  const model = snap.modelsByName.get(name);
  const room = snap.headroom.get(name);
  if (!model || !room) throw notFound(`a model called ${name}`);
  if (!dryRun) refuseDeclared(model);
  const held = snap.replicas.filter(
    (r) => r.model === name && r.state !== "failed" && r.node !== null,
  ).length;
  const more = replicas - held;
  const free = room.free ?? 0;
  const total = room.total ?? 0;
  const largestFit = held + total;
  const base = { model: name, replicas, largestFit, victims: [] as TargetResult["victims"] };

  let result: Omit<TargetResult, "applied">;
  if (more <= 0 || (room.limitedBy !== "unknown-need" && more <= Math.min(free, total))) {
    result = { ...base, outcome: "fits", message: `${replicas} fits on free capacity` };
  } else if (room.limitedBy !== "unknown-need" && more <= total) {
    const victims = victimsFor(model, snap.index, more - free).map((v) => ({
      replica: v.replica.id,
      model: v.replica.model,
      node: v.replica.node ?? "",
      class: v.className,
    }));
    result = {
      ...base,
      outcome: "preempts",
      victims,
      message: `${replicas} fits by preempting ${victims.length} replica${victims.length === 1 ? "" : "s"}`,
    };
  } else {
    const why =
      room.limitedBy === "unknown-need"
        ? "its memory and cores are not set, so nothing can be counted"
        : room.limitedBy === "quota"
          ? `the quota of ${model.owner} allows ${room.quotaRemaining ?? 0} more`
          : `the fleet has room for ${total} more`;
    return {
      ...base,
      outcome: "refused",
      applied: false,
      message: `${replicas} does not fit: ${why}; the largest target that fits is ${largestFit}`,
    };
  }
  if (dryRun) return { ...result, applied: false };
  // A target of 0 stops the model: the run-mode rule would count 0 as 1 for a mode that runs.
  const running = modeOf(model.scaling);
  const mode = replicas === 0 ? "stopped" : running === "stopped" ? "always" : running;
  await patchModel({ deps, name, ifMatch: model.version, patch: { mode, replicas }, by });
  return { ...result, applied: true };
}

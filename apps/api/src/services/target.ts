import {
  applySchedule,
  counted,
  holdsResources,
  type Model,
  modeOf,
  type Replica,
  type Schedule,
  schedule,
  type TargetResult,
} from "@llmgw/domain";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import type { Snapshot } from "../world";
import type { ControlFace } from "./control";
import { headroomNamed, modelNamed } from "./modelNamed";
import { patchModel, refuseDeclared } from "./patchModel";

/** The most a target may ask (targetRequestSchema): asking the planner for it finds the largest that fits. */
const MOST = 10_000;

/**
 * `POST /models/:name/target`: whether N replicas fit on free capacity, need preemption (naming
 * the victims by model, node and class), or are refused with the largest target that fits. The
 * answer is the scheduler's own: the planner runs on the current fleet with the model wanting N,
 * so a dry run lists the victims the scheduler would evict. Without dryRun a target that is not
 * refused is applied, and the scheduler then places it; one that is refused is a 409
 * `target_refused` carrying the dry run's fields, so nobody takes a refused target for done.
 */
export async function target({
  deps,
  control,
  input,
  by,
}: {
  deps: Deps;
  control: ControlFace;
  input: { name: string; replicas: number; dryRun: boolean };
  by: string;
}): Promise<TargetResult> {
  const { name, replicas, dryRun } = input;
  const snap = await deps.world.snapshot();
  const model = modelNamed(snap, name);
  const room = headroomNamed(snap, name);
  if (!dryRun) refuseDeclared(model);
  const held = onNodes(snap, model, snap.replicas).length;
  const asked = plan(deps, control.wakes, snap, model, replicas);
  const base = { model: name, replicas, victims: [] as TargetResult["victims"] };
  const unplaced =
    asked.heldBack.some((h) => h.model === name) || asked.pending.some((r) => r.model === name);

  if (unplaced) {
    // The plan placed all it could: what it got is the most that fits.
    const largestFit = onNodes(snap, model, applySchedule(snap.replicas, asked)).length;
    const why =
      room.limitedBy === "unknown-need"
        ? "its memory and cores are not set, so nothing can be counted"
        : asked.heldBack.some((h) => h.model === name)
          ? `the quota of ${model.owner} allows ${Math.max(0, largestFit - held)} more`
          : `the fleet has room for ${Math.max(0, largestFit - held)} more`;
    const refused: TargetResult = {
      ...base,
      largestFit,
      outcome: "refused",
      applied: false,
      message: `${replicas} does not fit: ${why}; the largest target that fits is ${largestFit}`,
    };
    if (dryRun) return refused;
    throw new AppError({ code: "target_refused", message: refused.message, extra: refused });
  }
  const victims = asked.evict
    .filter((e) => e.preemptor.model === name)
    .map((e) => ({
      replica: e.replica.id,
      model: e.replica.model,
      node: snap.replicas.find((r) => r.id === e.replica.id)?.node ?? "",
      class: e.className,
    }));
  const largestFit = onNodes(
    snap,
    model,
    applySchedule(snap.replicas, plan(deps, control.wakes, snap, model, MOST)),
  ).length;
  const result: Omit<TargetResult, "applied"> =
    victims.length > 0
      ? {
          ...base,
          largestFit,
          victims,
          outcome: "preempts",
          message: `${replicas} fits by preempting ${counted(victims.length, "replica")}`,
        }
      : { ...base, largestFit, outcome: "fits", message: `${replicas} fits on free capacity` };
  if (dryRun) return { ...result, applied: false };
  // A target of 0 stops the model: the run-mode rule would count 0 as 1 for a mode that runs.
  const running = modeOf(model.scaling);
  const mode = replicas === 0 ? "stopped" : running === "stopped" ? "always" : running;
  await patchModel({ deps, input: { name, version: model.version, patch: { mode, replicas } }, by });
  control.nudge();
  return { ...result, applied: true };
}

/**
 * The scheduler's plan with the model wanting `replicas` as if always on (an on-demand model's
 * target is how many may run; the question is whether they fit).
 */
function plan(
  deps: Deps,
  wakes: ReadonlyMap<string, number>,
  snap: Snapshot,
  model: Model,
  replicas: number,
): Schedule {
  const wanting: Model = { ...model, scaling: { ...model.scaling, min: replicas, max: replicas } };
  // Every other model wants what it holds now: the question is whether N of this model fit on
  // the fleet as it is, not what the scheduler would do for models it has not placed yet (with
  // the scheduler off, or mid-way, their missing replicas would otherwise take this room).
  const holding = new Map<string, number>();
  for (const r of snap.replicas) {
    if (r.node !== null && !r.unmanaged && holdsResources(r) && r.state !== "stopping") {
      holding.set(r.model, (holding.get(r.model) ?? 0) + 1);
    }
  }
  const asIs = (m: Model): Model => {
    const held = holding.get(m.name) ?? 0;
    return { ...m, scaling: { ...m.scaling, min: held, max: held } };
  };
  let made = 0;
  return schedule({
    models: snap.models.map((m) => (m.name === model.name ? wanting : asIs(m))),
    nodes: snap.nodes,
    replicas: snap.replicas,
    classes: snap.classes,
    quotas: snap.quotas,
    wakes,
    now: deps.now().getTime(),
    newId: (name) => `${name}-dry-run-${++made}`,
    index: snap.index,
  });
}

/** The model's replicas holding a place: running or nominated, on a node that is not draining. */
function onNodes(snap: Snapshot, model: Model, replicas: readonly Replica[]): Replica[] {
  return replicas.filter(
    (r) =>
      r.model === model.name &&
      r.node !== null &&
      (r.state === "starting" || r.state === "ready" || r.state === "pending") &&
      snap.nodesByName.get(r.node)?.state !== "draining",
  );
}

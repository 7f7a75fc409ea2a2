import { coversFloor } from "./bounds";
import { refusedOnEveryNode } from "./engineArgs";
import { modeOf, replicasOf, scalingFor } from "./runModes";
import type { Model, ModelPatch, Profile } from "./schemas";

/** The fields that decide where and how many replicas run: the card's first row edits them. */
export const PLACEMENT_FIELDS = [
  "class",
  "owner",
  "memoryGB",
  "cpuCores",
  "gpus",
  "mode",
  "replicas",
] as const;

/** The card's fields a patch may change (SPEC §2.7), in the order changes are reported. */
export const PATCH_FIELDS = [
  ...PLACEMENT_FIELDS,
  "idleTimeoutSeconds",
  "maxReplicas",
  "targetInFlight",
  "description",
  "aliases",
  "contextLength",
  "maxOutput",
  // SPEC §11.1: what the replicas run; a change of either is a new revision.
  "source",
  "args",
] as const;
export type PatchField = (typeof PATCH_FIELDS)[number];

/** One field that changed: what gets audited and announced on its own. */
export interface FieldChange {
  field: PatchField;
  before: unknown;
  after: unknown;
}

/** A patch that cannot apply to this model, naming the field the form should mark. */
export class PatchError extends Error {
  override readonly name = "PatchError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Applies a merge patch of the card's fields and says what actually changed. A field sent with
 * the value it already has is no change, so a patch that changes nothing bumps no version and
 * writes no audit. Changes are read off the card before and after, so a change one field makes
 * to another (stopping a model drops its replicas to 0) is reported too.
 */
export function applyPatch(model: Model, patch: ModelPatch): { next: Model; changes: FieldChange[] } {
  const index = profileIndex(model, patch);
  const profile = model.profiles[index];
  // SPEC §11.1: args no node would run are refused here, before a rollout starts replicas.
  const refused = patch.args && profile ? refusedOnEveryNode(profile.engine, patch.args) : null;
  if (refused) throw new PatchError("args", refused);
  const next: Model = {
    ...model,
    class: patch.class ?? model.class,
    owner: patch.owner ?? model.owner,
    description: patch.description ?? model.description,
    aliases: patch.aliases ?? model.aliases,
    contextLength: patch.contextLength ?? model.contextLength,
    maxOutput: patch.maxOutput === undefined ? model.maxOutput : patch.maxOutput,
    source: patch.source ?? model.source,
    scaling: nextScaling(model, patch),
    profiles: model.profiles.map((p, i) => (i === index ? nextProfile(p, patch) : p)),
  };
  const before = cardOf(model, index);
  const after = cardOf(next, index);
  const changes = PATCH_FIELDS.filter((field) => !sameValue(before[field], after[field])).map((field) => ({
    field,
    before: before[field],
    after: after[field],
  }));
  return { next: changes.length === 0 ? model : next, changes };
}

function profileIndex(model: Model, patch: ModelPatch): number {
  if (patch.profile === undefined) return 0;
  const index = model.profiles.findIndex((p) => p.name === patch.profile);
  if (index < 0) throw new PatchError("profile", `${model.name} has no profile called "${patch.profile}"`);
  return index;
}

function nextProfile(profile: Profile, patch: ModelPatch): Profile {
  return {
    ...profile,
    minMemoryGB: patch.memoryGB ?? profile.minMemoryGB,
    cpuCores: patch.cpuCores ?? profile.cpuCores,
    gpus: patch.gpus ?? profile.gpus,
    args: patch.args ?? profile.args,
  };
}

/**
 * Mode and replicas go through the run-mode rule, each defaulting to what the model has now; then
 * `maxReplicas` sets max (SPEC §9.6: "mode + replicas" still mean {min, max} as §2.1).
 */
function nextScaling(model: Model, patch: ModelPatch): Model["scaling"] {
  const idle = patch.idleTimeoutSeconds ?? model.scaling.idleTimeoutSeconds;
  const target = patch.targetInFlight === undefined ? model.scaling.targetInFlight : patch.targetInFlight;
  let scaling: Model["scaling"];
  if (patch.mode === undefined && patch.replicas === undefined) {
    scaling = { ...model.scaling, idleTimeoutSeconds: idle, targetInFlight: target };
  } else {
    const mode = patch.mode ?? modeOf(model.scaling);
    // Silently keeping a stopped model at 0 would lose what the operator typed.
    if (mode === "stopped" && patch.replicas !== undefined && patch.replicas > 0) {
      throw new PatchError(
        "replicas",
        "a stopped model runs no replicas; choose always or on demand as well",
      );
    }
    scaling = scalingFor(mode, patch.replicas ?? replicasOf(model.scaling), idle, target);
  }
  if (patch.maxReplicas === undefined) return scaling;
  if (modeOf(scaling) === "stopped") {
    throw new PatchError(
      "maxReplicas",
      "a stopped model runs no replicas; choose always or on demand as well",
    );
  }
  if (!coversFloor(patch.maxReplicas, scaling.min)) {
    throw new PatchError("maxReplicas", `must be at least min (${scaling.min})`);
  }
  return { ...scaling, max: patch.maxReplicas };
}

function cardOf(model: Model, index: number): Record<PatchField, unknown> {
  const profile = model.profiles[index];
  return {
    class: model.class,
    owner: model.owner,
    memoryGB: profile?.minMemoryGB,
    cpuCores: profile?.cpuCores,
    gpus: profile?.gpus,
    mode: modeOf(model.scaling),
    replicas: replicasOf(model.scaling),
    idleTimeoutSeconds: model.scaling.idleTimeoutSeconds,
    maxReplicas: maxAboveMin(model.scaling),
    targetInFlight: model.scaling.targetInFlight ?? null,
    description: model.description,
    aliases: model.aliases,
    contextLength: model.contextLength,
    maxOutput: model.maxOutput,
    source: model.source,
    args: profile?.args,
  };
}

/**
 * The card's max: what an always model may grow to beyond its min (SPEC §9.6), null when it runs
 * exactly min. An on-demand model's max is its replicas field already: reported there, not twice.
 */
function maxAboveMin(scaling: Model["scaling"]): number | null {
  return modeOf(scaling) === "always" && scaling.max > scaling.min ? scaling.max : null;
}

/** Field values are scalars or lists of names; lists compare element by element. */
function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  }
  return Object.is(a, b);
}

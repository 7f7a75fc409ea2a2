import {
  applyPatch,
  coversFloor,
  type Mode,
  type ModelPatch,
  type ModelSummary,
  modelPatchSchema,
  modeOf,
  PLACEMENT_FIELDS,
  replicasOf,
} from "@llmgw/domain";
import { wholeNumber } from "../../lib/units";

/**
 * The fields a model's card edits, as the text its inputs hold, and the rules that turn an edit into
 * the smallest patch: only what differs from what the operator started from is sent, so a field
 * somebody else changed meanwhile is not overwritten with the value the card happened to show.
 */

export const CARD_FIELDS = [...PLACEMENT_FIELDS, "maxReplicas", "targetInFlight"] as const;
export type CardField = (typeof CARD_FIELDS)[number];
export type CardValues = Record<Exclude<CardField, "mode">, string> & { mode: Mode };
export type CardErrors = Partial<Record<CardField, string>>;

export const FIELD_LABELS: Record<CardField, string> = {
  class: "Class",
  owner: "Owner",
  memoryGB: "Memory (GB)",
  cpuCores: "Cores",
  gpus: "GPUs",
  mode: "Mode",
  replicas: "Replicas",
  maxReplicas: "Max replicas",
  targetInFlight: "Requests per replica",
};

const NUMERIC = ["memoryGB", "cpuCores", "gpus", "replicas"] as const;

export function cardValuesOf(model: ModelSummary): CardValues {
  const profile = model.profiles[0];
  return {
    class: model.class,
    owner: model.owner,
    memoryGB: String(profile?.minMemoryGB ?? 0),
    cpuCores: String(profile?.cpuCores ?? 0),
    gpus: String(profile?.gpus ?? 0),
    mode: model.mode,
    replicas: String(replicasOf(model.scaling)),
    maxReplicas: String(model.scaling.max),
    // Blank: the replica's slots (SPEC §9.2).
    targetInFlight: model.scaling.targetInFlight == null ? "" : String(model.scaling.targetInFlight),
  };
}

export function patchFrom(base: CardValues, edited: CardValues): { patch: ModelPatch; errors: CardErrors } {
  const errors: CardErrors = {};
  const patch: ModelPatch = {};
  if (edited.class !== base.class) patch.class = edited.class;
  if (edited.owner.trim() !== base.owner) patch.owner = edited.owner.trim();
  if (edited.mode !== base.mode) patch.mode = edited.mode;
  for (const field of NUMERIC) {
    // A stopped model has no count: the field is not sent until a mode that runs is chosen.
    if (field === "replicas" && edited.mode === "stopped") continue;
    if (edited[field].trim() === base[field]) continue;
    const value = wholeNumber(edited[field]);
    if (value === null) errors[field] = "a whole number, 0 or more";
    else if (String(value) !== base[field]) patch[field] = value;
  }
  scalingPatch(base, edited, patch, errors);
  const checked = modelPatchSchema.safeParse(patch);
  if (!checked.success) {
    for (const issue of checked.error.issues) {
      const field = issue.path[0];
      if (isCardField(field)) errors[field] ??= issue.message;
    }
  }
  return { patch, errors };
}

/**
 * Autoscaling's fields (SPEC §9.6). Max is an always-on model's (on demand, replicas is the most
 * already). It is sent when typed above the replicas, and with a change of replicas or mode when
 * the model scaled above min before, since "mode + replicas" alone set {N, N}; equal to the
 * replicas on a model that runs exactly min, it is what the server does anyway and is not sent.
 */
function scalingPatch(base: CardValues, edited: CardValues, patch: ModelPatch, errors: CardErrors): void {
  const typed = edited.maxReplicas.trim() !== base.maxReplicas;
  const scaledBefore = base.mode === "always" && base.maxReplicas !== base.replicas;
  // A max equal to the replicas is what the server makes of mode + replicas anyway.
  const above = edited.maxReplicas.trim() !== edited.replicas.trim();
  const moved = patch.replicas !== undefined || patch.mode !== undefined;
  if (edited.mode === "always" && ((typed && (above || scaledBefore)) || (scaledBefore && moved))) {
    const max = wholeNumber(edited.maxReplicas);
    const min = wholeNumber(edited.replicas) ?? 0;
    if (max === null || max < 1) errors.maxReplicas = "a whole number, 1 or more";
    // The domain's rule (SPEC §9.6), the one the server applies to the patch, in the card's words.
    else if (!coversFloor(max, min)) errors.maxReplicas = `at least the replicas (${min})`;
    else patch.maxReplicas = max;
  }
  const target = edited.targetInFlight.trim();
  if (target === base.targetInFlight) return;
  if (target === "") patch.targetInFlight = null;
  else {
    const value = wholeNumber(target);
    if (value === null || value < 1) errors.targetInFlight = "a whole number, 1 or more; blank: its slots";
    else patch.targetInFlight = value;
  }
}

export function isCardField(key: unknown): key is CardField {
  return typeof key === "string" && (CARD_FIELDS as readonly string[]).includes(key);
}

/**
 * The model as it will be once the patch is applied: what the card shows while the PATCH is out.
 * The domain's rule, so the guess is the server's answer; a patch it refuses shows nothing yet.
 */
export function withPatch<M extends ModelSummary>(model: M, patch: ModelPatch): M {
  try {
    const { next } = applyPatch(model, patch);
    return { ...model, ...next, mode: modeOf(next.scaling) };
  } catch {
    return model;
  }
}

/** "Class → critical, Memory (GB) → 24": the operator's own edit, in the card's words. */
export function describePatch(patch: ModelPatch): string {
  return Object.entries(patch)
    .map(([key, value]) => `${isCardField(key) ? FIELD_LABELS[key] : key} → ${String(value)}`)
    .join(", ");
}

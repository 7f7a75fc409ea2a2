import { z } from "zod";
import { coversFloor, MAX_CPU_CORES, MAX_MEMORY_GB, MAX_REPLICA_COUNT } from "./bounds";
import { scalingFor } from "./runModes";
import {
  DEFAULT_CTX_POOL,
  labelKey,
  labelValue,
  type ModelInput,
  maxReplicasSchema,
  modelInputSchema,
  modeSchema,
  type ServePlan,
} from "./schemas";

/**
 * The serve wizard's form (SPEC §6): what nobody can infer from the mirror, plus the plan's
 * estimates as editable fields. Derived from the API's schema so the browser and the server
 * refuse the same things with the same words. The fields alone, for a form that types some of
 * them differently (`serveFormSchema` is these with `checkServeForm`).
 */
export const serveFormFields = modelInputSchema
  .pick({
    name: true,
    description: true,
    aliases: true,
    contextLength: true,
    maxOutput: true,
    // What the capacity is worth and whose quota it counts against (SPEC §1 Class, Owner).
    class: true,
    owner: true,
  })
  .extend({
    /** The engine's context pool, not the per-request limit: llama.cpp divides it among slots. */
    ctxPool: z.int().positive().max(10_000_000).default(DEFAULT_CTX_POOL),
    mode: modeSchema.default("always"),
    replicas: z.int().min(0).max(MAX_REPLICA_COUNT).default(1),
    /**
     * Always on: how far traffic may take it (SPEC §9); null, or the replicas, runs exactly that
     * many. On demand, `replicas` is the most already.
     */
    maxReplicas: maxReplicasSchema.nullable().default(null),
    minMemoryGB: z.int().min(0).max(MAX_MEMORY_GB),
    cpuCores: z.int().min(0).max(MAX_CPU_CORES),
    /** What keeps a large model off the small nodes: one label the nodes must carry. */
    nodeSelector: z
      .strictObject({
        key: z.string().trim().pipe(labelKey),
        value: z.string().trim().pipe(labelValue.min(1, "a label needs a value")),
      })
      .optional(),
  });

/** What no one field can say alone: max is at least the replicas an always-on model runs. */
export function checkServeForm(
  form: { mode: string; replicas: number; maxReplicas: number | null },
  ctx: z.RefinementCtx,
): void {
  if (form.mode === "always" && form.maxReplicas !== null && !coversFloor(form.maxReplicas, form.replicas)) {
    ctx.addIssue({ code: "custom", message: "at least the replicas it always runs", path: ["maxReplicas"] });
  }
}

export const serveFormSchema = serveFormFields.superRefine(checkServeForm);
export type ServeFormInput = z.input<typeof serveFormSchema>;
export type ServeForm = z.output<typeof serveFormSchema>;

/**
 * The catalogue entry a submitted form makes from a plan: one profile named for the hardware,
 * with the engine, source and estimates the plan settled and the operator confirmed.
 */
export function modelFromServeForm(plan: ServePlan, form: ServeForm): ModelInput {
  const args = plan.engine === "llamacpp" ? ["--ctx-size", String(form.ctxPool)] : [];
  return {
    name: form.name,
    description: form.description,
    source: plan.source,
    aliases: form.aliases,
    contextLength: form.contextLength,
    maxOutput: form.maxOutput,
    class: form.class,
    owner: form.owner,
    scaling: scalingOf(form),
    profiles: [
      {
        name: plan.profile,
        engine: plan.engine,
        weight: 1,
        priority: 100,
        args,
        minMemoryGB: form.minMemoryGB,
        cpuCores: form.cpuCores,
        // vLLM needs a card to run at all; one is the least it can ask for.
        gpus: plan.engine === "vllm" ? 1 : 0,
        nodeSelector: form.nodeSelector ? { [form.nodeSelector.key]: form.nodeSelector.value } : {},
      },
    ],
  };
}

/** The run mode's scaling (SPEC §2.1), with max above min when the form asks traffic to decide. */
function scalingOf(form: ServeForm): ModelInput["scaling"] {
  const scaling = scalingFor(form.mode, form.replicas);
  if (form.mode !== "always" || form.maxReplicas === null || form.maxReplicas <= scaling.min) return scaling;
  return { ...scaling, max: form.maxReplicas };
}

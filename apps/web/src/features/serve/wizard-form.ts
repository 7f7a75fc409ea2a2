import {
  checkServeForm,
  counted,
  type MirrorEntry,
  NAME_PATTERN,
  type QuotaUsage,
  type ServePlan,
  serveFormFields,
} from "@llmgw/domain";
import { z } from "zod";

/**
 * The wizard's form is the domain's `serveFormSchema` with two fields as a person types them:
 * aliases as one comma-separated line, and the node selector as two boxes that may both be left
 * blank. Both are piped into the domain's own rules, so the browser refuses what the API would.
 */
export const wizardFormSchema = serveFormFields
  .extend({
    aliases: z
      .string()
      .transform((line) =>
        line
          .split(",")
          .map((a) => a.trim())
          .filter((a) => a !== ""),
      )
      .pipe(serveFormFields.shape.aliases.unwrap()),
    nodeSelector: z
      .object({ key: z.string(), value: z.string() })
      .transform((s) => (s.key.trim() === "" && s.value.trim() === "" ? undefined : s))
      .pipe(serveFormFields.shape.nodeSelector),
  })
  .superRefine(checkServeForm);
export type WizardInput = z.input<typeof wizardFormSchema>;
export type WizardOutput = z.output<typeof wizardFormSchema>;
export type WizardField =
  | "name"
  | "class"
  | "owner"
  | "description"
  | "aliases"
  | "contextLength"
  | "maxOutput"
  | "ctxPool"
  | "mode"
  | "replicas"
  | "maxReplicas"
  | "minMemoryGB"
  | "cpuCores"
  | "nodeSelector.key"
  | "nodeSelector.value";

/** A name the catalogue accepts: the mirror's model name, or model-version when that one is taken. */
export function suggestedName(plan: ServePlan): string {
  const base = plan.already ? `${plan.model}-${plan.version}` : plan.model;
  const cleaned = base.replace(/[^A-Za-z0-9._:-]+/g, "-").slice(0, 64);
  return NAME_PATTERN.test(cleaned) ? cleaned : "";
}

export function initialValues(entry: MirrorEntry, plan: ServePlan): WizardInput {
  const trained = entry.gguf?.contextLength ?? null;
  return {
    name: suggestedName(plan),
    description: "",
    aliases: "",
    contextLength: Math.min(plan.ctxPool, trained ?? plan.ctxPool),
    maxOutput: null,
    class: "standard",
    owner: "",
    ctxPool: plan.ctxPool,
    mode: "always",
    replicas: 1,
    maxReplicas: null,
    minMemoryGB: plan.minMemoryGB,
    cpuCores: plan.cpuCores,
    nodeSelector: { key: "", value: "" },
  };
}

/**
 * The owner's quota as the wizard shows it under the owner field: what the new model will count
 * against, so an operator sees before submitting whether it has room.
 */
export function quotaLine(typed: string, quotas: readonly QuotaUsage[]): string {
  const owner = typed.trim();
  if (owner === "") return "unowned: counts against no quota";
  const quota = quotas.find((q) => q.owner === owner);
  if (!quota) return `${owner} has no quota: no limit`;
  const of = (used: number, limit: number | null, noun: string, plural?: string) =>
    limit === null ? `${plural ?? `${noun}s`}: no limit` : `${used} of ${counted(limit, noun, plural)}`;
  return `${owner} uses ${[
    of(quota.used.memoryGB, quota.memoryGB, "GB", "GB"),
    of(quota.used.cpuCores, quota.cpuCores, "core"),
    of(quota.used.gpus, quota.gpus, "GPU"),
    of(quota.used.replicas, quota.replicas, "replica"),
  ].join(", ")}`;
}

/**
 * Where a server's field error belongs on the form. The API names paths in the model it would
 * have stored (`profiles.0.minMemoryGB`, `scaling.min`); the form has its own names for them.
 * Null: no field of the form says it, so the message goes above the form.
 */
export function formFieldOf(path: string): WizardField | null {
  const [head, second, third] = path.split(".");
  switch (head) {
    case "name":
    case "class":
    case "owner":
    case "description":
    case "contextLength":
    case "maxOutput":
      return head;
    case "aliases":
      return "aliases";
    case "scaling":
      return second === "max" ? "maxReplicas" : "replicas";
    case "profiles":
      if (second === undefined || !/^\d+$/.test(second)) return null;
      if (third === "minMemoryGB") return "minMemoryGB";
      if (third === "cpuCores") return "cpuCores";
      if (third === "args") return "ctxPool";
      if (third === "nodeSelector") return "nodeSelector.key";
      return null;
    default:
      return null;
  }
}

/**
 * Plainer words for the generic issues of numeric fields; messages a schema sets itself (the name
 * pattern's) win over these.
 */
export function friendlyIssue(issue: {
  code?: string;
  expected?: string;
  input?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  inclusive?: boolean;
  origin?: string;
}): string | undefined {
  if (issue.code === "invalid_type" && (issue.expected === "number" || issue.expected === "int")) {
    return issue.input === undefined || issue.input === "" ? "required" : "a whole number";
  }
  if (issue.code === "invalid_type" && issue.expected === "string" && issue.input === undefined)
    return "required";
  if (issue.origin === "string" && issue.code === "too_small" && issue.minimum === 1) return "required";
  if (issue.origin === "number" && issue.code === "too_small") {
    return issue.inclusive ? `at least ${String(issue.minimum)}` : `more than ${String(issue.minimum)}`;
  }
  if (issue.origin === "number" && issue.code === "too_big") return `at most ${String(issue.maximum)}`;
  return undefined;
}

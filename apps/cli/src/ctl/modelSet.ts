import { segment } from "@llmgw/client";
import {
  type AuditEntry,
  conflictBodySchema,
  type ModelPatch,
  type ModelView,
  modeSchema,
  replicasOf,
} from "@llmgw/domain";
import { limitOf, usage, type Values, wholeNumber } from "./args";
import { CtlError } from "./client";
import { type Command, type Ctx, operand, show } from "./command";
import { keyValues, timeText, valueText } from "./table";

/** The card fields `model set` can change, by flag; only the flags given go into the patch. */
function patchOf(values: Values): ModelPatch {
  const patch: ModelPatch = {};
  if (values.class !== undefined) patch.class = values.class;
  if (values.owner !== undefined) patch.owner = values.owner;
  if (values.memory !== undefined) patch.memoryGB = wholeNumber("--memory", values.memory);
  if (values.cores !== undefined) patch.cpuCores = wholeNumber("--cores", values.cores);
  if (values.gpus !== undefined) patch.gpus = wholeNumber("--gpus", values.gpus);
  if (values.mode !== undefined) {
    const mode = modeSchema.safeParse(values.mode);
    if (!mode.success) {
      throw usage(`--mode: expected one of ${modeSchema.options.join(", ")}, got "${values.mode}"`);
    }
    patch.mode = mode.data;
  }
  if (values.replicas !== undefined) patch.replicas = wholeNumber("--replicas", values.replicas);
  if (values.max !== undefined) patch.maxReplicas = wholeNumber("--max", values.max);
  // `none`: back to the replica's slots (SPEC §9.2).
  if (values.target !== undefined) patch.targetInFlight = limitOf("--target", values.target);
  if (Object.keys(patch).length === 0) {
    throw usage(
      "model set: nothing to set; give at least one of --class --owner --memory --cores --gpus --mode --replicas --max --target",
    );
  }
  return patch;
}

/** What the operator sees of a model's card, to say what a patch changed. */
function cardOf(m: ModelView): Record<string, unknown> {
  const profile = m.profiles[0];
  return {
    class: m.class,
    owner: m.owner,
    memoryGB: profile?.minMemoryGB,
    cpuCores: profile?.cpuCores,
    gpus: profile?.gpus,
    mode: m.mode,
    replicas: replicasOf(m.scaling),
    max: m.scaling.max,
    target: m.scaling.targetInFlight ?? "slots",
  };
}

function changesText(before: ModelView, after: ModelView, ctx: Ctx): string {
  if (after.version === before.version) {
    return `${after.name} already has those values; nothing changed (version ${after.version})\n`;
  }
  const was = cardOf(before);
  const now = cardOf(after);
  const lines = Object.keys(now)
    .filter((field) => JSON.stringify(was[field]) !== JSON.stringify(now[field]))
    .map((field): [string, string] => [field, `${valueText(was[field])} → ${valueText(now[field])}`]);
  const indented = keyValues(lines, ctx.style)
    .split("\n")
    .map((line) => (line === "" ? line : `  ${line}`))
    .join("\n");
  return `${after.name} is now version ${after.version}\n${indented}`;
}

/** An audit entry of a change someone else made: `owner: - → ml (by ops at 2025-… , version 4)`. */
function changedLine(e: AuditEntry): string {
  const version = e.version === undefined ? "" : `, version ${e.version}`;
  return `${e.field ?? e.action}: ${valueText(e.before)} → ${valueText(e.after)} (by ${e.by} at ${timeText(e.at)}${version})`;
}

/** A 412: nothing was applied; say who changed what since the model was read. */
function staleRefusal(err: CtlError): CtlError {
  const body = conflictBodySchema.safeParse(err.body);
  if (!body.success) return err;
  const changed = body.data.changedSince;
  return new CtlError({
    exitCode: 1,
    status: err.status,
    code: err.code,
    body: err.body,
    message: `${err.message}; nothing was applied. Changed meanwhile:`,
    details: [
      ...(changed.length === 0 ? ["(the audit names no field)"] : changed.map(changedLine)),
      "look at the model again (llmgw ctl model show) and re-run the command if it still applies",
    ],
  });
}

export const modelSet: Command = {
  words: ["model", "set"],
  operands: ["NAME"],
  options: ["class", "owner", "memory", "cores", "gpus", "mode", "replicas", "max", "target"],
  flags:
    "[--class C] [--owner O] [--memory GB] [--cores N] [--gpus N] [--mode always|ondemand|stopped] [--replicas N] [--max N] [--target N|none]",
  summary: "change only the given fields, and only if nobody changed the model meanwhile",
  async run(ctx, operands, values) {
    const name = operand(operands, 0);
    const patch = patchOf(values);
    const param = { name: segment(name) };
    // The ETag read with the model: the patch applies only to what was read.
    const read = await ctx.sent(ctx.api.models[":name"].$get({ param }));
    const before = await read.json();
    const etag = read.headers.get("etag") ?? `"${before.version}"`;
    try {
      const after = await ctx.answer(
        ctx.api.models[":name"].$patch({ param, json: patch }, { headers: { "If-Match": etag } }),
      );
      show(ctx, after, (m) => changesText(before, m, ctx));
      return 0;
    } catch (err) {
      if (err instanceof CtlError && err.status === 412) throw staleRefusal(err);
      throw err;
    }
  },
};

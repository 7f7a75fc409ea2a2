import { segment } from "@llmgw/client";
import type { ModelPatch, ModelView, RolloutView } from "@llmgw/domain";
import { usage, type Values, wholeNumber } from "./args";
import { CtlError } from "./client";
import { type Command, type Ctx, operand, show } from "./command";

// `llmgw ctl model rollout` (SPEC §11.5): starts a rollout (a new source or args), or promotes or
// aborts the one running; with --wait, follows it on stderr until it is done or rolled back.

/** Where a rollout stands, in one line: `ctl model show` and the progress lines say it so. */
export function rolloutLine(r: RolloutView): string {
  const share = r.state === "canary" && r.canaryPercent !== null ? ` (${r.canaryPercent} % of requests)` : "";
  const reqs = `requests ${r.requests.old.sent} (${r.requests.old.failed} failed) / ${r.requests.new.sent} (${r.requests.new.failed} failed)`;
  const reason = r.reason ? `: ${r.reason}` : "";
  return `revision ${r.from} → ${r.to} ${r.state}${share}; replicas ${r.replicas.old} old, ${r.replicas.new} new; ${reqs}${reason}`;
}

/** `--args '--ctx-size 4096 -fa'`: split on spaces, as a shell would split an unquoted word list. */
function argsOf(text: string): string[] {
  return text.split(/\s+/).filter((a) => a !== "");
}

async function patchOf(ctx: Ctx, name: string, values: Values): Promise<ModelPatch> {
  if (values.source !== undefined && values.version !== undefined) {
    throw usage("model rollout: give --source or --version, not both");
  }
  const patch: ModelPatch = {};
  if (values.source !== undefined) patch.source = values.source;
  if (values.version !== undefined) {
    // A version of the same model in the mirror: its source as the mirror serves it. The same
    // model is the mirror's model the catalogue model runs now (the demo's llama-3.1-8b runs
    // llama-3.1-8b-instruct/Q4_K_M), else the mirror's model of the same name.
    const [mirror, model] = await Promise.all([
      ctx.answer(ctx.api.mirror.$get()),
      ctx.answer(ctx.api.models[":name"].$get({ param: { name: segment(name) } })),
    ]);
    const mirrored = mirror.find((v) => v.plan.source === model.source)?.model ?? name;
    const entry = mirror.find((v) => v.model === mirrored && v.version === values.version);
    if (!entry) {
      const known = mirror.filter((v) => v.model === mirrored).map((v) => v.version);
      throw usage(
        `--version: the mirror holds no version ${values.version} of ${mirrored}${known.length > 0 ? ` (it holds ${known.join(", ")})` : ""}`,
      );
    }
    patch.source = entry.plan.source;
  }
  if (values.args !== undefined) patch.args = argsOf(values.args);
  if (values.canary !== undefined) patch.rollout = { canaryPercent: wholeNumber("--canary", values.canary) };
  if (patch.source === undefined && patch.args === undefined) {
    throw usage("model rollout: give --source URL, --version V or --args '…' (or --promote / --abort)");
  }
  return patch;
}

/** Follows the rollout on stderr until it is over; 1 with the reason when it rolled back. */
async function follow(ctx: Ctx, name: string, to: number): Promise<number> {
  let said = "";
  for (;;) {
    const m: ModelView = await ctx.answer(ctx.api.models[":name"].$get({ param: { name: segment(name) } }));
    const r = m.rollout;
    if (!r || r.to !== to) throw new CtlError({ exitCode: 1, message: `${name}: another rollout took over` });
    const line = rolloutLine(r);
    if (line !== said) ctx.stderr.write(`${name}: ${line}\n`);
    said = line;
    if (r.state === "done") return 0;
    if (r.state === "rolledBack") {
      throw new CtlError({ exitCode: 1, message: `${name}: ${r.reason ?? "rolled back"}` });
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export const modelRollout: Command = {
  words: ["model", "rollout"],
  operands: ["NAME"],
  options: ["source", "version", "args", "canary", "wait", "promote", "abort"],
  flags: "(--source URL | --version V) [--args '…'] [--canary P] [--wait] | --promote | --abort",
  summary: "roll out a new source or args (a canary with --canary P), or promote or abort the one held",
  async run(ctx, operands, values) {
    const name = operand(operands, 0);
    const param = { name: segment(name) };
    if (values.promote || values.abort) {
      if (values.promote && values.abort) throw usage("model rollout: --promote or --abort, not both");
      const action = values.promote ? "promote" : "abort";
      const m = await ctx.answer(ctx.api.models[":name"].rollout.$post({ param, json: { action } }));
      show(ctx, m, (v) => `${name}: ${v.rollout ? rolloutLine(v.rollout) : action}\n`);
      return values.wait && m.rollout ? follow(ctx, name, m.rollout.to) : 0;
    }
    const patch = await patchOf(ctx, name, values);
    const read = await ctx.sent(ctx.api.models[":name"].$get({ param }));
    const before = await read.json();
    const etag = read.headers.get("etag") ?? `"${before.version}"`;
    const after = await ctx.answer(
      ctx.api.models[":name"].$patch({ param, json: patch }, { headers: { "If-Match": etag } }),
    );
    show(ctx, after, (m) =>
      m.rollout && m.revision !== before.revision
        ? `${name}: ${rolloutLine(m.rollout)}\n`
        : `${name}: nothing changed (revision ${m.revision})\n`,
    );
    if (!values.wait || !after.rollout || after.revision === before.revision) return 0;
    return follow(ctx, name, after.rollout.to);
  },
};

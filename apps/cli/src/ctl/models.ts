import { segment } from "@llmgw/client";
import {
  counted,
  type ModelSummary,
  type ModelView,
  profilesByPriority,
  replicasWanted,
  runningText,
  type TargetResult,
  targetRefusedBodySchema,
} from "@llmgw/domain";
import { wholeNumber } from "./args";
import { CtlError } from "./client";
import { type Command, type Ctx, operand, show } from "./command";
import { headroomLine, needText } from "./headroom";
import { modelRollout, rolloutLine } from "./modelRollout";
import { modelSet } from "./modelSet";
import { gb, keyValues, orDash, plus, table, timeText } from "./table";

function modelsTable(models: ModelSummary[], ctx: Ctx): string {
  if (models.length === 0) return "no models in the catalogue\n";
  return table(
    [
      { header: "NAME" },
      { header: "CLASS" },
      { header: "OWNER" },
      { header: "MODE" },
      { header: "REPLICAS", align: "right" },
      { header: "MIN-MAX", align: "right" },
      { header: "MEMORY", align: "right" },
      { header: "CORES", align: "right" },
      { header: "+NOW", align: "right" },
      { header: "+PREEMPT", align: "right" },
      { header: "QUOTA-LEFT", align: "right" },
      { header: "PROFILES" },
    ],
    models.map((m) => [
      m.name,
      m.class,
      orDash(m.owner),
      m.mode,
      `${m.headroom.current}/${replicasWanted(m)}`,
      `${m.scaling.min}-${m.scaling.max}`,
      gb(m.headroom.need.memoryGB),
      String(m.headroom.need.cpuCores),
      plus(m.headroom.free),
      plus(m.headroom.byPreemption),
      orDash(m.headroom.quotaRemaining),
      profilesText(m),
    ]),
    ctx.style,
  );
}

/**
 * Every profile of a model in the order placement tries them (SPEC §2.6: highest priority first),
 * each with its priority and weight: `gpu p200 w1, cpu p100 w3`.
 */
function profilesText(m: Pick<ModelSummary, "profiles">): string {
  return profilesByPriority(m)
    .map((p) => `${p.name} p${p.priority} w${p.weight}`)
    .join(", ");
}

/** A profile's replicas: ready of all that are not failed (`1/2`). */
function profileReplicas(m: ModelView, profile: string): string {
  const mine = m.replicas.filter((r) => r.state !== "failed" && r.profile === profile);
  return `${mine.filter((r) => r.state === "ready").length}/${mine.length}`;
}

/**
 * The card's autoscale line (SPEC §9.5): `1–4, 4 per replica: demand 14, wanted 4 (may scale down
 * at 14:05:00)`, and the quota when it caps the model.
 */
function autoscaleText(m: ModelView): string {
  const { min, max } = m.scaling;
  const line = m.autoscale;
  if (line === null) return `off (min ${min}, max ${max}; --max above min turns it on)`;
  const hold = line.holdUntil === null ? "" : `, may scale down at ${timeText(line.holdUntil)}`;
  const quota = line.quotaAllows === null ? "" : `; the owner's quota allows ${line.quotaAllows}`;
  return `${min}–${max}, ${line.target} per replica: demand ${line.demand}, desired ${line.desired}, wanted ${line.wanted}${hold}${quota}`;
}

function modelCard(m: ModelView, ctx: Ctx): string {
  const profile = m.profiles[0];
  const card = keyValues(
    [
      ["name", m.name],
      ["aliases", m.aliases.length === 0 ? "-" : m.aliases.join(", ")],
      ["description", orDash(m.description)],
      ["class", m.class],
      ["owner", orDash(m.owner)],
      ["mode", m.mode === "ondemand" ? `ondemand (idle timeout ${m.scaling.idleTimeoutSeconds} s)` : m.mode],
      ["replicas", runningText(m.headroom, replicasWanted(m))],
      ["autoscale", autoscaleText(m)],
      [
        "need",
        `${needText(m.headroom.need)} per replica${profile ? ` (profile ${profile.name})` : ""}${m.profiles.length > 1 ? `; ${counted(m.profiles.length, "profile")}: ${profilesText(m)}` : ""}`,
      ],
      ["headroom", headroomLine(m.headroom)],
      ["quota", m.quota.remaining === null ? "no limit" : `${m.quota.remaining} more replicas`],
      ["source", m.source],
      ["revision", m.rollout ? `${m.revision}; rollout ${rolloutLine(m.rollout)}` : String(m.revision)],
      ["context", `${m.contextLength} tokens, output limit ${m.maxOutput ?? "none"}, ${m.routingProfile}`],
      [
        "origin",
        `${m.origin === "config" ? "config (read-only: edit the configuration file)" : "runtime"}, version ${m.version}, updated ${timeText(m.updatedAt)} by ${m.updatedBy}`,
      ],
    ],
    ctx.style,
  );
  const profiles = table(
    [
      { header: "PROFILE" },
      { header: "PRIORITY", align: "right" },
      { header: "WEIGHT", align: "right" },
      { header: "REPLICAS", align: "right" },
      { header: "ENGINE" },
      { header: "MEMORY", align: "right" },
      { header: "CORES", align: "right" },
      { header: "GPUS", align: "right" },
      { header: "SELECTOR" },
    ],
    profilesByPriority(m).map((p) => [
      p.name,
      String(p.priority),
      String(p.weight),
      profileReplicas(m, p.name),
      p.engine,
      gb(p.minMemoryGB),
      String(p.cpuCores),
      String(p.gpus),
      orDash(
        Object.entries(p.nodeSelector)
          .map(([k, v]) => `${k}=${v}`)
          .join(","),
      ),
    ]),
    ctx.style,
  );
  const replicas =
    m.replicas.length === 0
      ? "no replicas\n"
      : table(
          [
            { header: "REPLICA" },
            { header: "NODE" },
            { header: "PROFILE" },
            { header: "STATE" },
            { header: "MEMORY", align: "right" },
            { header: "MEASURED", align: "right" },
            { header: "CORES", align: "right" },
            { header: "GPUS", align: "right" },
            { header: "STARTED" },
            { header: "REASON" },
          ],
          m.replicas.map((r) => [
            r.id,
            orDash(r.node),
            r.profile,
            r.state,
            gb(r.memoryGB),
            r.measuredMemoryGB === null ? "-" : gb(r.measuredMemoryGB),
            String(r.cpuCores),
            String(r.gpus),
            timeText(r.startedAt),
            orDash(r.reason),
          ]),
          ctx.style,
        );
  return `${card}\n${profiles}\n${replicas}`;
}

function targetText(result: TargetResult, dryRun: boolean, ctx: Ctx): string {
  const applied = result.applied ? "yes" : dryRun ? "no (dry run)" : "no";
  const summary = keyValues(
    [
      ["model", result.model],
      ["target", counted(result.replicas, "replica")],
      ["outcome", result.outcome],
      ["message", result.message],
      ["applied", applied],
      ["largest fit", String(result.largestFit)],
    ],
    ctx.style,
  );
  if (result.victims.length === 0) return summary;
  const victims = table(
    [{ header: "VICTIM" }, { header: "NODE" }, { header: "CLASS" }, { header: "REPLICA" }],
    result.victims.map((v) => [v.model, v.node, v.class, v.replica]),
    ctx.style,
  );
  return `${summary}\n${victims}`;
}

/** A real target's 409 `target_refused` carries the dry run's fields: shown as a dry run's refusal is. */
function refusedTarget(err: unknown): TargetResult {
  if (!(err instanceof CtlError) || err.code !== "target_refused") throw err;
  const body = targetRefusedBodySchema.safeParse(err.body);
  if (!body.success) throw err;
  const { error: _error, ...result } = body.data;
  return result;
}

export const modelCommands: Command[] = [
  {
    words: ["models"],
    operands: [],
    options: [],
    summary: "the catalogue: class, owner, mode, replicas current/wanted and min-max, need and headroom",
    async run(ctx) {
      show(ctx, await ctx.answer(ctx.api.models.$get()), (models) => modelsTable(models, ctx));
      return 0;
    },
  },
  {
    words: ["model", "show"],
    operands: ["NAME"],
    options: [],
    summary: "one model: its card, profiles and replicas",
    async run(ctx, operands) {
      show(
        ctx,
        await ctx.answer(ctx.api.models[":name"].$get({ param: { name: segment(operand(operands, 0)) } })),
        (m) => modelCard(m, ctx),
      );
      return 0;
    },
  },
  {
    words: ["model", "target"],
    operands: ["NAME", "N"],
    options: ["dry-run"],
    flags: "[--dry-run]",
    summary: "run N replicas: fits on free capacity, preempts (naming victims) or is refused",
    async run(ctx, operands, values) {
      const replicas = wholeNumber("N", operand(operands, 1));
      const dryRun = values["dry-run"] === true;
      const result = await ctx
        .answer(
          ctx.api.models[":name"].target.$post({
            param: { name: segment(operand(operands, 0)) },
            json: { replicas, dryRun },
          }),
        )
        .catch(refusedTarget);
      show(ctx, result, (r) => targetText(r, dryRun, ctx));
      // A refused target is the server saying no: a dry run's 200 with the numbers, or a real one's 409.
      return result.outcome === "refused" ? 1 : 0;
    },
  },
  modelSet,
  modelRollout,
];

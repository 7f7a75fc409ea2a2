import { segment } from "@llmgw/client";
import { counted, type Headroom, type HeadroomSummary, runningText } from "@llmgw/domain";
import { type Command, type Ctx, operand, show } from "./command";
import { gb, keyValues, orDash, plus, table } from "./table";

/** `+2 now, +1 by preempting batch; quota left 3; at most +3 (limited by capacity)`: the card's line. */
export function headroomLine(h: HeadroomSummary): string {
  if (h.limitedBy === "unknown-need") {
    return "cannot be counted: the model asks for no memory, cores or GPUs (set --memory and --cores)";
  }
  const victims = victimClasses(h);
  const preempt = `${plus(h.byPreemption)} by preempting${victims === "-" ? "" : ` ${victims}`}`;
  const quota = h.quotaRemaining === null ? "no quota limit" : `quota left ${h.quotaRemaining}`;
  return `${plus(h.free)} now, ${preempt}; ${quota}; at most ${plus(h.total)} (limited by ${h.limitedBy})`;
}

export function needText(need: Headroom["need"]): string {
  const gpus = need.gpus > 0 ? `, ${counted(need.gpus, "GPU")}` : "";
  return `${gb(need.memoryGB)}, ${counted(need.cpuCores, "core")}${gpus}`;
}

/** The classes that would lose replicas, with how many: `batch 2, standard 1`. */
function victimClasses(h: HeadroomSummary): string {
  const parts = Object.entries(h.victimsByClass)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${c} ${n}`);
  return parts.length === 0 ? "-" : parts.join(", ");
}

function allTable(rows: HeadroomSummary[], ctx: Ctx): string {
  if (rows.length === 0) return "no models in the catalogue\n";
  return table(
    [
      { header: "MODEL" },
      { header: "NEED" },
      { header: "RUNNING", align: "right" },
      { header: "STARTING", align: "right" },
      { header: "ELSEWHERE", align: "right" },
      { header: "+NOW", align: "right" },
      { header: "+PREEMPT", align: "right" },
      { header: "QUOTA-LEFT", align: "right" },
      { header: "TOTAL", align: "right" },
      { header: "LIMITED-BY" },
      { header: "VICTIMS" },
    ],
    rows.map((h) => [
      h.model,
      needText(h.need),
      String(h.current),
      String(h.starting),
      String(h.elsewhere),
      plus(h.free),
      plus(h.byPreemption),
      orDash(h.quotaRemaining),
      plus(h.total),
      h.limitedBy,
      victimClasses(h),
    ]),
    ctx.style,
  );
}

/** `8 nodes, e.g. n7: has no vllm engine`. */
function whyNotText(w: HeadroomSummary["whyNot"][number]): string {
  return `${counted(w.nodes, "node")}, e.g. ${w.example}`;
}

/** One model's headroom, then why each node holds what it does. */
function oneModel(h: Headroom, ctx: Ctx): string {
  const summary = keyValues(
    [
      ["model", h.model],
      ["need", `${needText(h.need)} per replica`],
      ["replicas", runningText(h)],
      ["headroom", headroomLine(h)],
      ["victims", victimClasses(h)],
      ...h.whyNot.map((w): [string, string] => [`why not: ${w.cause}`, whyNotText(w)]),
    ],
    ctx.style,
  );
  if (h.nodes.length === 0) return `${summary}\nno node is ready and matches this model\n`;
  const nodes = table(
    [
      { header: "NODE" },
      { header: "FIT-FREE", align: "right" },
      { header: "FIT-PREEMPT", align: "right" },
      { header: "REASON" },
    ],
    h.nodes.map((n) => [n.node, String(n.fitFree), String(n.fitPreempt), orDash(n.reason)]),
    ctx.style,
  );
  return `${summary}\n${nodes}`;
}

export const headroomCommands: Command[] = [
  {
    words: ["headroom"],
    operands: ["[NAME]"],
    options: [],
    summary: "how many more replicas each model could get (with NAME: node by node, and why)",
    async run(ctx, operands) {
      if (operands.length === 0) {
        show(ctx, await ctx.answer(ctx.api.headroom.$get()), (rows) => allTable(rows, ctx));
      } else {
        show(
          ctx,
          await ctx.answer(
            ctx.api.models[":name"].headroom.$get({ param: { name: segment(operand(operands, 0)) } }),
          ),
          (h) => oneModel(h, ctx),
        );
      }
      return 0;
    },
  },
];

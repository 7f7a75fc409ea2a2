import { segment } from "@llmgw/client";
import type { Quota, QuotaUsage } from "@llmgw/domain";
import { limitOf, usage } from "./args";
import { type Command, type Ctx, operand, show } from "./command";
import { table } from "./table";

type Limits = Omit<Quota, "owner">;

/** `used/limit`, with `-` for no limit. */
const usedOf = (used: number, limit: number | null) => `${used}/${limit ?? "-"}`;

function quotasTable(quotas: QuotaUsage[], ctx: Ctx): string {
  if (quotas.length === 0) return "no quotas set: every owner is unlimited\n";
  return table(
    [
      { header: "OWNER" },
      { header: "MEMORY(GB)", align: "right" },
      { header: "CORES", align: "right" },
      { header: "GPUS", align: "right" },
      { header: "REPLICAS", align: "right" },
    ],
    quotas.map((q) => [
      q.owner === "" ? "(unowned)" : q.owner,
      usedOf(q.used.memoryGB, q.memoryGB),
      usedOf(q.used.cpuCores, q.cpuCores),
      usedOf(q.used.gpus, q.gpus),
      usedOf(q.used.replicas, q.replicas),
    ]),
    ctx.style,
  );
}

const NO_LIMITS: Limits = { memoryGB: null, cpuCores: null, gpus: null, replicas: null };

export const quotaCommands: Command[] = [
  {
    words: ["quotas"],
    operands: [],
    options: [],
    summary: "each owner's limits and usage (used/limit; - is no limit)",
    async run(ctx) {
      show(ctx, await ctx.answer(ctx.api.quotas.$get()), (quotas) => quotasTable(quotas, ctx));
      return 0;
    },
  },
  {
    words: ["quota", "set"],
    operands: ["OWNER"],
    options: ["memory", "cores", "gpus", "replicas"],
    flags: "[--memory GB|none] [--cores N|none] [--gpus N|none] [--replicas N|none]",
    summary: "set an owner's limits; limits not given stay as they are",
    async run(ctx, operands, values) {
      const owner = operand(operands, 0);
      const given: Partial<Limits> = {};
      if (values.memory !== undefined) given.memoryGB = limitOf("--memory", values.memory);
      if (values.cores !== undefined) given.cpuCores = limitOf("--cores", values.cores);
      if (values.gpus !== undefined) given.gpus = limitOf("--gpus", values.gpus);
      if (values.replicas !== undefined) given.replicas = limitOf("--replicas", values.replicas);
      if (Object.keys(given).length === 0) {
        throw usage("quota set: nothing to set; give at least one of --memory --cores --gpus --replicas");
      }
      // PUT replaces all four limits: start from the owner's current ones so the rest stay.
      const current = (await ctx.answer(ctx.api.quotas.$get())).find((q) => q.owner === owner);
      const { memoryGB, cpuCores, gpus, replicas } = current ?? NO_LIMITS;
      const stored = await ctx.answer(
        ctx.api.quotas[":owner"].$put({
          param: { owner: segment(owner) },
          json: { memoryGB, cpuCores, gpus, replicas, ...given },
        }),
      );
      show(ctx, stored, (q) => quotasTable([q], ctx));
      return 0;
    },
  },
];

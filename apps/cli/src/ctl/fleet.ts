import { segment } from "@llmgw/client";
import type { NodeView } from "@llmgw/domain";
import { type Command, type Ctx, operand, show } from "./command";
import { orDash, table, timeText } from "./table";

/** `free/total`, or `?` for a total the agent does not report (0 means "not reported"). */
const share = (free: number, total: number, unit = "") => (total === 0 ? "?" : `${free}/${total}${unit}`);

/** Replicas on the node by class, highest class first: `critical 1, batch 2`. */
function byClass(node: NodeView): string {
  const rows = node.usage.byClass.filter((c) => c.replicas > 0).map((c) => `${c.class} ${c.replicas}`);
  return rows.length === 0 ? "-" : rows.join(", ");
}

function nodesTable(nodes: NodeView[], ctx: Ctx): string {
  if (nodes.length === 0) return "no nodes have reported yet (start `llmgw agent` on them)\n";
  return table(
    [
      { header: "NODE" },
      { header: "STATE" },
      { header: "MEMORY(FREE/TOTAL)", align: "right" },
      { header: "CORES", align: "right" },
      { header: "GPUS", align: "right" },
      { header: "REPLICAS" },
      { header: "ENGINES" },
      { header: "LABELS" },
      { header: "LAST-SEEN (UTC)" },
    ],
    nodes.map((n) => [
      n.name,
      n.state,
      share(n.usage.free.memoryGB, n.memoryGB, " GB"),
      share(n.usage.free.cpuCores, n.cpuCount),
      n.gpuTotal === 0 ? "-" : share(n.usage.free.gpus, n.gpuTotal),
      byClass(n),
      orDash(n.engines.join(",")),
      orDash(
        Object.entries(n.labels)
          .map(([k, v]) => `${k}=${v}`)
          .join(","),
      ),
      timeText(n.lastSeen),
    ]),
    ctx.style,
  );
}

export const fleetCommands: Command[] = [
  {
    words: ["fleet"],
    operands: [],
    options: [],
    summary: "the nodes: state, free/total memory, cores and GPUs, replicas by class, engines",
    async run(ctx) {
      show(ctx, await ctx.answer(ctx.api.fleet.nodes.$get()), (nodes) => nodesTable(nodes, ctx));
      return 0;
    },
  },
  {
    words: ["node", "drain"],
    operands: ["NAME"],
    options: [],
    summary: "no new replicas on the node; the scheduler moves its replicas elsewhere (operator)",
    async run(ctx, operands) {
      const node = await ctx.answer(
        ctx.api.fleet.nodes[":name"].drain.$post({ param: { name: segment(operand(operands, 0)) } }),
      );
      show(ctx, node, (n) => `${n.name} is ${n.state}\n`);
      return 0;
    },
  },
  {
    words: ["node", "resume"],
    operands: ["NAME"],
    options: [],
    summary: "a drained node takes replicas again (operator)",
    async run(ctx, operands) {
      const node = await ctx.answer(
        ctx.api.fleet.nodes[":name"].resume.$post({ param: { name: segment(operand(operands, 0)) } }),
      );
      show(ctx, node, (n) => `${n.name} is ${n.state}\n`);
      return 0;
    },
  },
  {
    words: ["node", "delete"],
    operands: ["NAME"],
    options: [],
    summary: "forget a down node and its replicas; refused for a live one (operator)",
    async run(ctx, operands) {
      const name = operand(operands, 0);
      await ctx.sent(ctx.api.fleet.nodes[":name"].$delete({ param: { name: segment(name) } }));
      show(ctx, { deleted: name }, () => `forgot ${name} and its replicas\n`);
      return 0;
    },
  },
];

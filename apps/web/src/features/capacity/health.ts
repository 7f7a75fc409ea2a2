import {
  type ModelSummary,
  modelAttention,
  type NodeView,
  nodeAttention,
  type QuotaUsage,
  quotaAttention,
} from "@llmgw/domain";

/** What the Capacity page's health line counts: the domain's attention rules, summed. */
export type Health = {
  /** Models with any attention mark of their own (short, failed, waiting, elsewhere, over estimate). */
  models: number;
  /** Of those, always-on models running fewer replicas than they want. */
  short: number;
  down: number;
  draining: number;
  /** Owners using more than their quota allows. */
  overQuota: number;
};

export function healthOf(
  models: readonly ModelSummary[],
  nodes: readonly Pick<NodeView, "name" | "state">[],
  quotas: readonly QuotaUsage[],
): Health {
  let attention = 0;
  let short = 0;
  for (const model of models) {
    const found = modelAttention(model);
    if (found.length > 0) attention++;
    if (found.some((a) => a.kind === "short")) short++;
  }
  const nodeKinds = nodes.flatMap((n) => nodeAttention(n).map((a) => a.kind));
  return {
    models: attention,
    short,
    down: nodeKinds.filter((k) => k === "node-down").length,
    draining: nodeKinds.filter((k) => k === "node-draining").length,
    overQuota: quotas.filter((q) => quotaAttention(q).length > 0).length,
  };
}

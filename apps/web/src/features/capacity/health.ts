import {
  type ModelSummary,
  modelAttention,
  type NodeView,
  nodeAttention,
  overQuotaOf,
  type QuotaUsage,
} from "@llmgw/domain";

/** What the Capacity page's health line counts: the domain's attention rules, summed. */
export type Health = {
  /**
   * Models with any attention mark (short, failed, waiting, elsewhere, over estimate, owner over
   * quota): the ones the Models page's "needs attention" filter, which this count links to, shows.
   */
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
  const overQuota = overQuotaOf(quotas);
  let attention = 0;
  let short = 0;
  for (const model of models) {
    const found = modelAttention(model, overQuota.get(model.owner));
    if (found.length > 0) attention++;
    if (found.some((a) => a.kind === "short")) short++;
  }
  const nodeKinds = nodes.flatMap((n) => nodeAttention(n).map((a) => a.kind));
  return {
    models: attention,
    short,
    down: nodeKinds.filter((k) => k === "node-down").length,
    draining: nodeKinds.filter((k) => k === "node-draining").length,
    overQuota: overQuota.size,
  };
}

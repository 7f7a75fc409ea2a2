import { counted } from "./counted";
import { memoryReading } from "./measuredMemory";
import { modeOf } from "./runModes";
import type { ModelSummary, NodeView, QuotaUsage } from "./schemas";

/**
 * What makes a model, a node or an owner "need attention" (SPEC §6, the operator's view): one
 * definition that the health line, the cards' marks and every screen's "needs attention" filter
 * share. Each is a short sentence in the operator's words, empty when all is well.
 */
export type Attention = { kind: AttentionKind; text: string };
export type AttentionKind =
  | "short"
  | "failed"
  | "waiting"
  | "elsewhere"
  | "over-estimate"
  | "over-quota"
  | "node-down"
  | "node-draining";

/**
 * A model needs attention when an always-on model runs fewer than it wants, a replica failed or
 * waits to be placed, replicas sit on a draining or down node, a replica measures more than 10%
 * more memory than the estimate it was placed by (it may not fit where the scheduler thinks it
 * does), or its
 * owner is over its quota. `ownerOverQuota`: the owner's sentence from `overQuotaOf`, if any; not
 * optional, so no screen can count a model's attention without its owner's quota.
 */
export function modelAttention(model: ModelSummary, ownerOverQuota: string | undefined): Attention[] {
  const found: Attention[] = [];
  const { headroom, replicas } = model;
  if (modeOf(model.scaling) === "always" && headroom.current < model.scaling.min) {
    // The card already says "0 / 1 replicas running" above: the mark says what is missing.
    found.push({
      kind: "short",
      text: `${counted(model.scaling.min - headroom.current, "replica")} short of wanted`,
    });
  }
  const failed = replicas.filter((r) => r.state === "failed");
  if (failed.length > 0) {
    const why = failed[0]?.reason;
    found.push({
      kind: "failed",
      text: `${counted(failed.length, "replica")} failed${why ? `: ${why}` : ""}`,
    });
  }
  const waiting = replicas.filter((r) => r.state === "pending");
  if (waiting.length > 0) {
    const why = waiting[0]?.reason;
    found.push({
      kind: "waiting",
      text: `${counted(waiting.length, "replica")} waiting to be placed${why ? `: ${why}` : ""}`,
    });
  }
  if (headroom.elsewhere > 0) {
    found.push({
      kind: "elsewhere",
      text: `${counted(headroom.elsewhere, "replica")} on a draining or down node`,
    });
  }
  const memory = memoryReading(model);
  if (memory?.verdict === "over") {
    found.push({
      kind: "over-estimate",
      text: `measured ${round(memory.measured)} GB, above the ${memory.estimate} GB estimate`,
    });
  }
  if (ownerOverQuota !== undefined) found.push({ kind: "over-quota", text: ownerOverQuota });
  return found;
}

/** An owner's dimensions used past their limit (a limit lowered below what already runs). */
export function quotaAttention(quota: QuotaUsage): Attention[] {
  const over: string[] = [];
  const check = (limit: number | null, used: number, what: string) => {
    if (limit !== null && used > limit) over.push(`${what} ${round(used)} of ${limit}`);
  };
  check(quota.memoryGB, quota.used.memoryGB, "memory GB");
  check(quota.cpuCores, quota.used.cpuCores, "cores");
  check(quota.gpus, quota.used.gpus, "GPUs");
  check(quota.replicas, quota.used.replicas, "replicas");
  if (over.length === 0) return [];
  const owner = quota.owner === "" ? "unowned" : quota.owner;
  return [{ kind: "over-quota", text: `${owner} is over its quota: ${over.join(", ")}` }];
}

/** Each owner over its quota, with the sentence that says by how much (from `quotaAttention`). */
export type OverQuota = ReadonlyMap<string, string>;

export function overQuotaOf(quotas: readonly QuotaUsage[]): OverQuota {
  return new Map(quotas.flatMap((q) => quotaAttention(q).map((a) => [q.owner, a.text] as const)));
}

/** A node needs attention when it is down or draining. */
export function nodeAttention(node: Pick<NodeView, "name" | "state">): Attention[] {
  if (node.state === "down") return [{ kind: "node-down", text: `${node.name} is down` }];
  if (node.state === "draining") return [{ kind: "node-draining", text: `${node.name} is draining` }];
  return [];
}

function round(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

import { type Quota, type QuotaUsage, quotaSchema, quotaUsage } from "@llmgw/domain";
import type { Deps } from "../deps";
import { badRequest } from "../errors";
import type { Snapshot } from "../world";
import { commit } from "./commit";

/** A quota with what its owner's models use now. */
export function usageOf(snap: Snapshot, quota: Quota): QuotaUsage {
  return { ...quota, used: quotaUsage(quota.owner, snap.index) };
}

/** Every owner's quota and what it uses. */
export async function listQuotas({ deps }: { deps: Deps }): Promise<QuotaUsage[]> {
  const snap = await deps.world.snapshot();
  return snap.quotas.map((q) => usageOf(snap, q));
}

/** Sets an owner's limits (SPEC §4 "Quotas"). Audited with what it replaced; announced. */
export async function putQuota({
  deps,
  input,
  by,
}: {
  deps: Deps;
  input: { owner: string; limits: Omit<Quota, "owner"> };
  by: string;
}): Promise<QuotaUsage> {
  const { owner, limits } = input;
  // The store refuses an owner the schema refuses: checked here, that is a 400 and not a 500.
  const checked = quotaSchema.shape.owner.safeParse(owner);
  if (!checked.success) {
    const problem = checked.error.issues[0]?.message ?? "not a valid owner";
    throw badRequest(`the owner is not valid: ${problem}`, { owner: problem });
  }
  const snap = await deps.world.snapshot();
  const before = snap.quotas.find((q) => q.owner === owner) ?? null;
  const at = deps.now().toISOString();
  return commit(deps, async (tx) => {
    const stored = await tx.quotas.put({ owner, ...limits });
    await tx.audit.append([{ at, by, action: "quota", target: owner, field: null, before, after: stored }]);
    const view = usageOf(snap, stored);
    return { result: view, events: [{ type: "quota.changed", data: view }] };
  });
}

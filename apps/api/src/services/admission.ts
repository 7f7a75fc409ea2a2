import { admitQuota, type Model, quotaCommitment, quotaIncrease } from "@llmgw/domain";
import { AppError } from "../errors";
import type { Snapshot } from "../world";

/** SPEC §2.5: only the increase is charged; refused with the owner, dimension, used, asked and limit. */
export function admit(snap: Snapshot, before: Model | null, after: Model): void {
  const quota = snap.quotas.find((q) => q.owner === after.owner) ?? null;
  const refusal = admitQuota({
    owner: after.owner,
    quota,
    usage: quotaCommitment(after.owner, snap.models, snap.replicas),
    increase: quotaIncrease(before, after),
  });
  if (refusal) {
    const { message, ...detail } = refusal;
    throw new AppError(409, "quota_exceeded", message, undefined, { quota: detail });
  }
}

/** A model's class must be one the fleet knows, or its rank (and so its preemption) is a guess. */
export function checkClass(snap: Snapshot, name: string): void {
  if (!snap.classes.some((c) => c.name === name)) {
    const known = snap.classes.map((c) => c.name).join(", ");
    throw new AppError(400, "bad_request", `no class called "${name}"`, {
      class: `no class called "${name}"; the classes are ${known}`,
    });
  }
}

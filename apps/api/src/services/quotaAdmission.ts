import { admitQuota, type Model, quotaCommitment, quotaIncrease } from "@llmgw/domain";
import type { StoreTx } from "@llmgw/store";
import { AppError } from "../errors";
import type { Snapshot } from "../world";

/**
 * SPEC §2.5, in the transaction that writes the change: refused (409 `quota_exceeded`, with the
 * owner, dimension, used, asked and limit) when what `after` adds to its owner's usage, over what
 * `before` (null for a create) held, would pass a limit. Only the increase is charged, and only a
 * change that adds something takes the owner's lock: then the usage is read after the lock, so
 * concurrent changes for one owner, in any process, are judged one after another. On a PATCH the
 * model may already be written in `tx` (the compare-and-set comes first, so a stale version is a
 * 412): its own usage is counted as `before`, whatever the transaction holds.
 */
export async function admit(tx: StoreTx, before: Model | null, after: Model): Promise<void> {
  const increase = quotaIncrease(before, after);
  if (!(await lockOwner(tx, before, after))) return;
  const quota = await tx.quotas.get(after.owner);
  if (quota === null) return;
  const others = (await tx.models.listByOwner(after.owner)).filter((m) => m.name !== after.name);
  // A model moving in from another owner brings all of it (quotaIncrease): it held nothing here.
  const models = before !== null && before.owner === after.owner ? [...others, before] : others;
  const replicas = await tx.replicas.listByModels(models.map((m) => m.name));
  const refusal = admitQuota({
    owner: after.owner,
    quota,
    usage: quotaCommitment(after.owner, models, replicas),
    increase,
  });
  if (refusal) {
    const { message, ...detail } = refusal;
    throw new AppError({ code: "quota_exceeded", message, extra: { quota: detail } });
  }
}

/**
 * Takes the lock `admit` reads the owner's usage under, when the change adds to it; whether it
 * did. A transaction that writes the model before admitting it calls this first: the lock comes
 * before any row, or two writers could each hold what the other waits for. Taking it again in
 * `admit` costs a round trip and nothing else (the same transaction holds it already).
 */
export async function lockOwner(tx: StoreTx, before: Model | null, after: Model): Promise<boolean> {
  if (!Object.values(quotaIncrease(before, after)).some((amount) => amount > 0)) return false;
  await tx.lock(`quota:${after.owner}`);
  return true;
}

/** A model's class must be one the fleet knows, or its rank (and so its preemption) is a guess. */
export function checkClass(snap: Snapshot, name: string): void {
  if (!snap.classes.some((c) => c.name === name)) {
    const known = snap.classes.map((c) => c.name).join(", ");
    throw new AppError({
      code: "bad_request",
      message: `no class called "${name}"`,
      fields: {
        class: `no class called "${name}"; the classes are ${known}`,
      },
    });
  }
}

import { counted } from "./counted";
import { holdsResources } from "./holding";
import { replicaNeed } from "./need";
import { replicasOf } from "./runModes";
import type { Model, Quota, QuotaUsage, Replica, Resources } from "./schemas";

/** Resources and a replica count: what an owner uses, or what a change adds to it. */
export type QuotaAmounts = QuotaUsage["used"];
export type QuotaDimension = keyof QuotaAmounts;

/** Why a change was refused (409 `quota_exceeded`), with the numbers the message quotes. */
export interface QuotaRefusal {
  owner: string;
  dimension: QuotaDimension;
  used: number;
  asked: number;
  limit: number;
  message: string;
}

const DIMENSIONS: readonly QuotaDimension[] = ["memoryGB", "cpuCores", "gpus", "replicas"];

/**
 * Quota admission (SPEC §2.5): null when the owner may take `increase` on top of `usage`,
 * else the first limit it would pass. Only the increase is charged, so an owner already over a
 * limit (the limit was lowered) may still shrink or change what does not add to it.
 */
export function admitQuota(input: {
  owner: string;
  quota: Quota | null;
  usage: QuotaAmounts;
  increase: QuotaAmounts;
}): QuotaRefusal | null {
  const { owner, quota, usage, increase } = input;
  if (quota === null) return null;
  for (const dimension of DIMENSIONS) {
    const limit = quota[dimension];
    const asked = increase[dimension];
    const used = usage[dimension];
    if (limit === null || asked <= 0 || used + asked <= limit) continue;
    return {
      owner,
      dimension,
      used,
      asked,
      limit,
      message: refusalMessage(owner, dimension, used, asked, limit),
    };
  }
  return null;
}

/**
 * What a change to a model adds to its owner's usage: the wanted replicas times the default
 * profile's need, after minus before, per dimension and never below 0. A model that changes
 * owner brings all of it to the new owner, so `before` only counts when the owner is the same.
 */
export function quotaIncrease(before: Model | null, after: Model): QuotaAmounts {
  const wanted = wantedUsage(after);
  const had = before !== null && before.owner === after.owner ? wantedUsage(before) : null;
  const increase = (d: QuotaDimension) => Math.max(0, wanted[d] - (had?.[d] ?? 0));
  return {
    memoryGB: increase("memoryGB"),
    cpuCores: increase("cpuCores"),
    gpus: increase("gpus"),
    replicas: increase("replicas"),
  };
}

/**
 * How many more replicas of `need` the owner's quota allows (SPEC §2.4): the tightest of the
 * limits that are set, over dimensions the need uses, and the replica limit. Null when no limit
 * applies.
 */
export function quotaRemaining(quota: Quota | null, usage: QuotaAmounts, need: Resources): number | null {
  if (quota === null) return null;
  const bounds: number[] = [];
  for (const dimension of ["memoryGB", "cpuCores", "gpus"] as const) {
    const limit = quota[dimension];
    if (limit !== null && need[dimension] > 0)
      bounds.push(Math.floor((limit - usage[dimension]) / need[dimension]));
  }
  if (quota.replicas !== null) bounds.push(quota.replicas - usage.replicas);
  return bounds.length === 0 ? null : Math.max(0, Math.min(...bounds));
}

/**
 * What an owner is committed to, for admission: per model the larger of what its replicas hold
 * now and what it wants. Live usage alone would let a target be raised in steps past a limit
 * while the replicas it already asked for are not placed yet (3 wanted, 1 running: raising to 5
 * would be charged against 1).
 */
export function quotaCommitment(
  owner: string,
  models: readonly Model[],
  replicas: readonly Replica[],
): QuotaAmounts {
  const live = new Map<string, QuotaAmounts>();
  for (const replica of replicas) {
    if (!holdsResources(replica) || replica.unmanaged) continue;
    const held = live.get(replica.model) ?? emptyUsage();
    held.memoryGB += replica.memoryGB;
    held.cpuCores += replica.cpuCores;
    held.gpus += replica.gpus;
    held.replicas += 1;
    live.set(replica.model, held);
  }
  const total = emptyUsage();
  for (const model of models) {
    if (model.owner !== owner) continue;
    const held = live.get(model.name) ?? emptyUsage();
    const wanted = wantedUsage(model);
    for (const d of DIMENSIONS) total[d] += Math.max(held[d], wanted[d]);
  }
  return total;
}

export function emptyUsage(): QuotaAmounts {
  return { memoryGB: 0, cpuCores: 0, gpus: 0, replicas: 0 };
}

function wantedUsage(model: Model): QuotaAmounts {
  const replicas = replicasOf(model.scaling);
  const need = replicaNeed(model);
  return {
    memoryGB: replicas * need.memoryGB,
    cpuCores: replicas * need.cpuCores,
    gpus: replicas * need.gpus,
    replicas,
  };
}

function refusalMessage(
  owner: string,
  dimension: QuotaDimension,
  used: number,
  asked: number,
  limit: number,
) {
  const who = owner === "" ? "unowned models" : `owner ${owner}`;
  const total = used + asked;
  const would = {
    memoryGB: `would use ${total} GB of memory`,
    cpuCores: `would use ${counted(total, "core")}`,
    gpus: `would use ${counted(total, "GPU")}`,
    replicas: `would run ${counted(total, "replica")}`,
  }[dimension];
  return `${who} ${would}, over its limit of ${limit} (uses ${used}, asks ${asked})`;
}

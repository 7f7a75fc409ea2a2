import type { FleetIndex } from "../fleetIndex";
import { admitQuota, emptyUsage, type QuotaAmounts } from "../quota";
import type { Quota, Replica, Resources } from "../schemas";
import type { Eviction, HeldBack, Schedule } from "./types";

interface Change {
  before: Replica | null;
  after: Replica | null;
  eviction?: Omit<Eviction, "replica">;
}

/**
 * A run's decisions as replicas before and after: a replica changed twice in one run (its
 * nomination dropped, then placed again) is one decision, and one that ends as it began is none.
 */
export class ChangeLog {
  readonly #changes = new Map<string, Change>();

  /** The replica as the run has left it so far; null once removed. */
  current(r: Replica): Replica | null {
    const change = this.#changes.get(r.id);
    return change ? change.after : r;
  }

  /** A replica the run made. */
  add(record: Replica): void {
    this.#changes.set(record.id, { before: null, after: record });
  }

  /** The replica's next version, keeping the version the run started from (and an eviction). */
  set(before: Replica, after: Replica | null, eviction?: Omit<Eviction, "replica">): void {
    const known = this.#changes.get(before.id);
    const change: Change = { before: known ? known.before : before, after };
    const evicted = eviction ?? known?.eviction;
    if (evicted) change.eviction = evicted;
    this.#changes.set(before.id, change);
  }

  /** The decisions, each under what its replica ends as. */
  schedule(heldBack: HeldBack[]): Schedule {
    const result: Schedule = { place: [], evict: [], stop: [], drain: [], pending: [], remove: [], heldBack };
    for (const { before, after, eviction } of this.#changes.values()) {
      if (after === null) {
        if (before) result.remove.push(before);
        continue;
      }
      if (before !== null && sameReplica(before, after)) continue;
      if (eviction) result.evict.push({ replica: after, ...eviction });
      else if (after.state === "stopping") result.stop.push(after);
      else if (before !== null && before.drainingSince !== after.drainingSince) result.drain.push(after);
      else if (after.node === null) result.pending.push(after);
      else result.place.push(after);
    }
    return result;
  }
}

/** What each owner uses as the run makes and drops replicas (SPEC §2.4: pending ones count). */
export class QuotaLedger {
  readonly #usage = new Map<string, QuotaAmounts>();
  readonly #quotas: Map<string, Quota>;

  constructor(
    quotas: readonly Quota[],
    private readonly index: FleetIndex,
  ) {
    this.#quotas = new Map(quotas.map((q) => [q.owner, q]));
  }

  /** Why the owner may not have one more replica of `need`, or null when it may. */
  refuses(owner: string, need: Resources): string | null {
    const refusal = admitQuota({
      owner,
      quota: this.#quotas.get(owner) ?? null,
      usage: this.#of(owner),
      increase: { ...need, replicas: 1 },
    });
    return refusal?.message ?? null;
  }

  charge(owner: string, r: Resources, sign: 1 | -1): void {
    const usage = this.#of(owner);
    usage.memoryGB += sign * r.memoryGB;
    usage.cpuCores += sign * r.cpuCores;
    usage.gpus += sign * r.gpus;
    usage.replicas += sign;
  }

  #of(owner: string): QuotaAmounts {
    let usage = this.#usage.get(owner);
    if (!usage) {
      usage = { ...(this.index.usageByOwner.get(owner) ?? emptyUsage()) };
      this.#usage.set(owner, usage);
    }
    return usage;
  }
}

export function sameNeed(r: Resources, need: Resources): boolean {
  return r.memoryGB === need.memoryGB && r.cpuCores === need.cpuCores && r.gpus === need.gpus;
}

function sameReplica(a: Replica, b: Replica): boolean {
  return (
    a.node === b.node &&
    a.state === b.state &&
    a.reason === b.reason &&
    sameNeed(a, b) &&
    a.startedAt === b.startedAt &&
    a.profile === b.profile &&
    a.drainingSince === b.drainingSince
  );
}

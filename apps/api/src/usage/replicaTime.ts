import { type CountedReplica, replicaHoursOver } from "@llmgw/domain";
import type { StoreTx } from "@llmgw/store";
import type { Snapshot } from "../world";

/**
 * The longest span one count covers. After a gap longer than this (every process stopped, or a
 * leader change that took long) the replicas' state in between is unknown: what is ready now is
 * counted for this long at most, not for the whole gap.
 */
export const REPLICA_SPAN_MAX_MS = 10_000;
/** With nothing ready, the leader still moves the clock this often, so a replica turning ready is not counted for a long idle span. */
export const REPLICA_IDLE_MS = 5_000;

/** The catalogue's replicas that are `ready` (draining ones too: they still hold their node), with their model's owner. */
export function readyReplicas(snap: Snapshot): CountedReplica[] {
  const ready: CountedReplica[] = [];
  for (const [name, replicas] of snap.replicasByModel) {
    const model = snap.modelsByName.get(name);
    if (!model) continue;
    for (const replica of replicas) {
      if (replica.state !== "ready" || replica.unmanaged) continue;
      ready.push({
        model: name,
        owner: model.owner,
        memoryGB: replica.memoryGB,
        cpuCores: replica.cpuCores,
        gpus: replica.gpus,
      });
    }
  }
  return ready;
}

/**
 * SPEC §12.1, replica-hours: counted by the scheduler's leader only, from one clock in the store.
 * The span from where the clock stood to `now` is counted for the replicas ready now, and the clock
 * moves to `now`, in the caller's transaction: a new leader continues where the last one stopped,
 * and two processes that both believe they lead for a moment never count one span twice (the
 * clock's row lock puts the second after the first, and it finds the span already counted).
 */
export async function countReplicaTime(
  tx: StoreTx,
  now: number,
  ready: readonly CountedReplica[],
): Promise<void> {
  const since = await tx.usage.moveReplicaClock(now);
  if (since === null || since >= now || ready.length === 0) return;
  await tx.usage.addReplicaHours(replicaHoursOver(Math.max(since, now - REPLICA_SPAN_MAX_MS), now, ready));
}

import type { Replica } from "../schemas";
import type { Schedule } from "./types";

/** One write a schedule asks for: the replica as it is to be stored, or its removal. */
export interface ReplicaWrite {
  replica: Replica;
  removed: boolean;
}

/** The writes of a schedule, in a stable order: placements, evictions, stops, drains, pending, removals. */
export function scheduleWrites(schedule: Schedule): ReplicaWrite[] {
  return [
    ...schedule.place.map((replica) => ({ replica, removed: false })),
    ...schedule.evict.map(({ replica }) => ({ replica, removed: false })),
    ...schedule.stop.map((replica) => ({ replica, removed: false })),
    ...schedule.drain.map((replica) => ({ replica, removed: false })),
    ...schedule.pending.map((replica) => ({ replica, removed: false })),
    ...schedule.remove.map((replica) => ({ replica, removed: true })),
  ];
}

/** Whether a schedule changes any replica (held-back replicas change nothing: they were never made). */
export function changesNothing(schedule: Schedule): boolean {
  return (
    schedule.place.length === 0 &&
    schedule.evict.length === 0 &&
    schedule.stop.length === 0 &&
    schedule.drain.length === 0 &&
    schedule.pending.length === 0 &&
    schedule.remove.length === 0
  );
}

/** The replicas once a schedule's writes are stored: what committing it does, for tests and dry runs. */
export function applySchedule(replicas: readonly Replica[], schedule: Schedule): Replica[] {
  const next = new Map(replicas.map((r) => [r.id, r]));
  for (const { replica, removed } of scheduleWrites(schedule)) {
    if (removed) next.delete(replica.id);
    else next.set(replica.id, replica);
  }
  return [...next.values()];
}

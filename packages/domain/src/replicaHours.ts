// SPEC §12.1: the hours each model's replicas were `ready`, with what they held, per model and owner.

import { addFields, HOUR_MS, hourOf, NO_USAGE_KEY, zeroOf } from "./usage";

/** What replicas of one (model, owner) were counted for: hours, and those hours × what each held. */
export type ReplicaFigures = {
  replicaHours: number;
  memoryGBHours: number;
  coreHours: number;
  gpuHours: number;
};

/** One stored hour of one (model, owner)'s replica figures; `hour` as in UsageRow. */
export type ReplicaHoursRow = ReplicaFigures & { hour: number; model: string; owner: string };

/** A replica counted over a span: its model, the model's owner, and what it holds. */
export type CountedReplica = {
  model: string;
  owner: string;
  memoryGB: number;
  cpuCores: number;
  gpus: number;
};

/** The replica figures' fields, in the order readings and CSV give them. */
export const REPLICA_FIGURES = [
  "replicaHours",
  "memoryGBHours",
  "coreHours",
  "gpuHours",
] as const satisfies readonly (keyof ReplicaFigures)[];

export const zeroReplicaFigures = (): ReplicaFigures => zeroOf(REPLICA_FIGURES);

export const addReplicaFigures = (a: ReplicaFigures, b: ReplicaFigures): void =>
  addFields(REPLICA_FIGURES, a, b);

/**
 * The replica figures of [from, to) (ms) for replicas `ready` over the whole of it, split at the
 * UTC hours the span crosses and summed per hour, model and owner. The counter calls it every
 * second or so with the replicas ready now: a replica that turned ready or stopped within a span
 * counts as it stood at the span's end, an error of at most one span per change.
 */
export function replicaHoursOver(
  from: number,
  to: number,
  replicas: readonly CountedReplica[],
): ReplicaHoursRow[] {
  const rows = new Map<string, ReplicaHoursRow>();
  for (let start = from; start < to; ) {
    const hour = hourOf(start);
    const end = Math.min(to, hour + HOUR_MS);
    const hours = (end - start) / HOUR_MS;
    for (const replica of replicas) {
      const model = replica.model || NO_USAGE_KEY;
      const owner = replica.owner || NO_USAGE_KEY;
      const key = `${hour}\u0000${model}\u0000${owner}`;
      let row = rows.get(key);
      if (!row) {
        row = { hour, model, owner, ...zeroReplicaFigures() };
        rows.set(key, row);
      }
      addReplicaFigures(row, {
        replicaHours: hours,
        memoryGBHours: hours * replica.memoryGB,
        coreHours: hours * replica.cpuCores,
        gpuHours: hours * replica.gpus,
      });
    }
    start = end;
  }
  return [...rows.values()];
}

/** Figures as read: rounded to a millionth of an hour (3.6 ms), so sums of seconds read cleanly. */
export function roundedFigures(f: ReplicaFigures): ReplicaFigures {
  const round = (n: number) => Math.round(n * 1e6) / 1e6;
  return {
    replicaHours: round(f.replicaHours),
    memoryGBHours: round(f.memoryGBHours),
    coreHours: round(f.coreHours),
    gpuHours: round(f.gpuHours),
  };
}

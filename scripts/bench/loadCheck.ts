// After the load: what the server acknowledged, against what it holds and what every open event
// stream heard. Each inconsistency is one line of the report.
import type { Stream } from "./loadStreams";

export type Acknowledged = {
  created: ReadonlySet<string>;
  deleted: ReadonlySet<string>;
  /** Creates and deletes an error answered: either outcome is consistent. */
  unsure: ReadonlySet<string>;
  /** Per patched model: PATCHes answered 200, and those an error answered (applied or not). */
  patched: ReadonlyMap<string, { acked: number; unsure: number }>;
};

/** `held`: every model the server lists now, with its version. */
export function inconsistencies(
  held: ReadonlyMap<string, number>,
  acked: Acknowledged,
  streams: readonly Stream[],
): { problems: string[]; events: number } {
  const { created, deleted, unsure, patched } = acked;
  const problems: string[] = [];
  for (const name of created)
    if (!deleted.has(name) && !unsure.has(name) && !held.has(name))
      problems.push(`acknowledged create ${name} is missing`);
  for (const name of deleted)
    if (held.has(name) && !unsure.has(name)) problems.push(`acknowledged delete ${name} is still there`);
  for (const name of held.keys())
    if (name.startsWith("made-") && !created.has(name) && !unsure.has(name))
      problems.push(`${name} is there, never acknowledged`);
  // Every acknowledged PATCH changed the description, so it moved the version by exactly one.
  for (const [name, count] of patched) {
    const version = held.get(name) ?? 0;
    if (version < 1 + count.acked || version > 1 + count.acked + count.unsure)
      problems.push(
        `${name}: version ${version} after ${count.acked} acknowledged patches (${count.unsure} unsure)`,
      );
  }
  // The streams opened before any of this: each must have every event any of them had, in order.
  const union = new Set(streams.flatMap((s) => [...s.ids]));
  for (const [i, stream] of streams.entries()) {
    const heard = {
      missed: union.size - stream.ids.size,
      outOfOrder: stream.outOfOrder,
      createsUnannounced: [...created].filter((n) => !stream.changed.has(n)).length,
      deletesUnannounced: [...deleted].filter((n) => !stream.removed.has(n)).length,
      endedEarly: stream.endedEarly,
    };
    if (Object.values(heard).some(Boolean)) problems.push(`stream ${i}: ${JSON.stringify(heard)}`);
  }
  return { problems, events: union.size };
}

import type { ChangeEvent } from "@llmgw/domain";
import type { StoreTx } from "@llmgw/store";
import type { Deps } from "../deps";
import type { CommittedEvent } from "../events/eventHub";
import type { Snapshot } from "../world";

/** A committed change applied to the picture in memory (world/patches.ts); null: read the store. */
export type Patch = (snap: Snapshot) => Snapshot | null;

/**
 * The patch of a change to tables the picture does not hold (pulls, the autoscaler's rows): the
 * picture stays as it is, and a read of it under way is not thrown away.
 */
export const UNCHANGED: Patch = (snap) => snap;

/**
 * Runs one change in one transaction with the events that announce it: the change, its audit
 * entries and its events commit together or not at all. After the commit the picture is brought
 * up to date (patched, or read again) and the events go out to this process's streams (through
 * the relay when other processes share the database, so each stream still gets every id once and
 * in order); by the time this resolves they have.
 */
export async function commit<T>(
  deps: Pick<Deps, "store" | "world" | "hub" | "origin">,
  change: (tx: StoreTx) => Promise<{ result: T; events: ChangeEvent[] }>,
  /**
   * Called once the change is committed, with its result: how it moves the picture forward
   * instead of reading the store again, or null to read it again (as without `patched`).
   */
  patched?: (result: T) => Patch | null,
): Promise<T> {
  // The picture the change is judged against, taken before it begins: a patch applies only if no
  // other write has moved the picture since (World.patch); otherwise the next read loads the store.
  const generation = deps.world.generation;
  const { result, published } = await deps.store.transaction(async (tx) => {
    const { result, events } = await change(tx);
    // Appended last, all at once: on PostgreSQL the event append holds a lock until commit.
    const ids = await tx.events.appendAll(events, deps.origin);
    const published: CommittedEvent[] = events.map((event, i) => ({ id: ids[i] ?? 0, ...event }));
    return { result, published };
  });
  const patch = patched?.(result) ?? null;
  if (patch === UNCHANGED) {
    // Nothing the picture holds moved.
  } else if (patch) deps.world.patch(generation, patch);
  else deps.world.invalidate();
  await deps.hub.announce(published);
  return result;
}

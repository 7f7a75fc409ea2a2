import type { ChangeEvent } from "@llmgw/domain";
import type { StoreTx } from "@llmgw/store";
import type { Deps } from "../deps";
import type { CommittedEvent } from "../events/hub";

/**
 * Runs one change in one transaction with the events that announce it: the change, its audit
 * entries and its events commit together or not at all. After the commit the snapshot is
 * invalidated and the events go out to this process's streams (through the relay when other
 * processes share the database, so each stream still gets every id once and in order); by the
 * time this resolves they have.
 */
export async function commit<T>(
  deps: Pick<Deps, "store" | "world" | "hub" | "origin">,
  change: (tx: StoreTx) => Promise<{ result: T; events: ChangeEvent[] }>,
  /** Brings the world up to date after the commit; by default the snapshot is read again. */
  refresh: (result: T) => void = () => deps.world.invalidate(),
): Promise<T> {
  const { result, published } = await deps.store.transaction(async (tx) => {
    const { result, events } = await change(tx);
    // Appended last, all at once: on PostgreSQL the event append holds a lock until commit.
    const ids = await tx.events.appendAll(events, deps.origin);
    const published: CommittedEvent[] = events.map((event, i) => ({ id: ids[i] ?? 0, ...event }));
    return { result, published };
  });
  refresh(result);
  await deps.hub.announce(published);
  return result;
}

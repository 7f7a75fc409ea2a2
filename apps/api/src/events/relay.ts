import { EVENTS_CHANNEL, type Store, type Unlisten } from "@llmgw/store";
import type { World } from "../world";
import type { EventHub, LiveEvent } from "./hub";

const PAGE = 1000;

export interface Relay {
  /** The highest event id this process has published. */
  readonly cursor: number;
  /** Reads and publishes whatever is new now (tests; the poll does the same). */
  catchUp(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Carries other processes' changes into this one (SPEC §4: several processes on one PostgreSQL).
 * Every event append NOTIFYs EVENTS_CHANNEL with its id; on a notification, and on a poll in case
 * a notification was lost (the LISTEN connection dropped), the relay reads the events after the
 * highest id it has published, publishes them in id order and invalidates the world snapshot.
 *
 * It also sequences this process's own events (the hub's `announce`): they go out at once when
 * they follow the last id published, else after a read that fills the gap from the store, so a
 * stream never sees an id twice or out of order. Ids become visible in commit order (the event
 * append holds an advisory lock until commit), so reading after the cursor never skips one.
 */
export async function startRelay(
  deps: { store: Store; hub: EventHub; world: World },
  options: { pollMs?: number; log?: (line: string) => void } = {},
): Promise<Relay> {
  const { store, hub, world } = deps;
  const { pollMs = 1_000, log = (line: string) => console.error(line) } = options;
  let cursor = await store.events.latestId();
  let queue: Promise<void> = Promise.resolve();
  let stopped = false;

  /** One delivery at a time, in the order asked: the cursor only moves forward. */
  const serially = (job: () => Promise<void>): Promise<void> => {
    const next = queue.then(job).catch((err: unknown) => log(`llmgw: event relay: ${String(err)}`));
    queue = next;
    return next;
  };

  /** Publishes every stored event after the cursor; `own` are this process's, kept as published objects. */
  const readNew = async (own?: ReadonlyMap<number, LiveEvent>) => {
    for (;;) {
      const page = await store.events.since(cursor, PAGE);
      if (page.length === 0) return;
      const out = page.map((event) => own?.get(event.id) ?? event);
      // Another process changed the data: the next read must not come from the old snapshot.
      if (out.some((event) => !own?.has(event.id))) world.invalidate();
      cursor = page[page.length - 1]?.id ?? cursor;
      hub.publish(out);
      if (page.length < PAGE) return;
    }
  };

  hub.sequenceWith((own) =>
    serially(async () => {
      const fresh = own.filter((event) => event.id > cursor);
      const [first] = fresh;
      if (first === undefined) return;
      const contiguous = fresh.every((event, i) => event.id === first.id + i);
      if (first.id === cursor + 1 && contiguous) {
        cursor = first.id + fresh.length - 1;
        hub.publish(fresh);
        return;
      }
      await readNew(new Map(fresh.map((event) => [event.id, event])));
    }),
  );

  // Notifications come in bursts (one per event, this process's own included): one read waiting
  // in the queue serves them all.
  let waiting: Promise<void> | null = null;
  const catchUp = () => {
    waiting ??= serially(() => {
      waiting = null;
      return readNew();
    });
    return waiting;
  };
  let unlisten: Unlisten | null = null;
  const listen = async () => {
    try {
      unlisten = await store.db.listen(EVENTS_CHANNEL, (payload) => {
        if (Number(payload) > cursor) void catchUp();
      });
    } catch (err) {
      log(`llmgw: event relay cannot listen (polling only until it can): ${String(err)}`);
    }
  };
  await listen();
  const poll = setInterval(() => {
    if (stopped) return;
    // A dropped LISTEN connection loses its subscription: listen again (the store reconnects).
    if (unlisten === null) void listen();
    void catchUp();
  }, pollMs);
  poll.unref();

  return {
    get cursor() {
      return cursor;
    },
    catchUp,
    async stop() {
      stopped = true;
      clearInterval(poll);
      hub.sequenceWith(null);
      await unlisten?.().catch(() => undefined);
      await queue;
    },
  };
}

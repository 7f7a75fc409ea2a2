import type { Logger } from "@llmgw/log";
import { EVENTS_CHANNEL, type Store, type Unlisten } from "@llmgw/store";
import type { World } from "../world";
import type { CommittedEvent, EventHub } from "./eventHub";

const PAGE = 1000;

/**
 * Whether an event says the snapshot's tables changed. A change of an autoscaled model's wanted
 * replicas (`model.scaled`, SPEC §9.5) does not: every process reads those rows once a second
 * itself (autoscale/), and a burst over many models must not make every other process read the
 * whole fleet again.
 */
const changesTables = (event: { type: string }) => event.type !== "model.scaled";
/** How long an event waits for an earlier id before the relay reads the store for it (ms). */
const GAP_MS = 25;

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
  deps: { store: Store; hub: EventHub; world: World; origin: string; log: Logger },
  options: { pollMs?: number; gapMs?: number } = {},
): Promise<Relay> {
  const { store, hub, world, origin, log } = deps;
  const { pollMs = 1_000, gapMs = GAP_MS } = options;
  let cursor = await store.events.latestId();
  let queue: Promise<void> = Promise.resolve();
  let stopped = false;
  /** This process's committed events not published yet: an earlier id is still on its way. */
  const pending = new Map<number, CommittedEvent>();
  /** Announcements waiting for their last id to go out. */
  let waiters: { upTo: number; resolve: () => void }[] = [];
  let gapTimer: ReturnType<typeof setTimeout> | null = null;

  /** One delivery at a time, in the order asked: the cursor only moves forward. */
  const serially = (job: () => Promise<void>): Promise<void> => {
    const next = queue.then(job).catch((err: unknown) => log.error({ err }, "event relay failed"));
    queue = next;
    return next;
  };

  /** Publishes this process's events that follow the cursor, and releases whoever waited for them. */
  const flush = () => {
    const out: CommittedEvent[] = [];
    for (let next = pending.get(cursor + 1); next !== undefined; next = pending.get(cursor + 1)) {
      pending.delete(next.id);
      out.push(next);
      cursor = next.id;
    }
    if (out.length > 0) hub.publish(out);
    for (const id of pending.keys()) if (id <= cursor) pending.delete(id);
    const done = waiters.filter((w) => w.upTo <= cursor);
    waiters = waiters.filter((w) => w.upTo > cursor);
    for (const w of done) w.resolve();
    if (pending.size === 0 && gapTimer !== null) {
      clearTimeout(gapTimer);
      gapTimer = null;
    }
    // A gap this process's commits do not fill soon is another process's (or an id a rolled-back
    // transaction took): read the store.
    if (pending.size > 0) gapTimer ??= setTimeout(() => void serially(readAcrossGap), gapMs);
  };

  /** Publishes every stored event after the cursor; the pending ones as this process's objects. */
  const readNew = async () => {
    for (;;) {
      const page = await store.events.since(cursor, PAGE);
      if (page.length === 0) break;
      const out = page.map((event) => pending.get(event.id) ?? event);
      // Another process changed the data: the next read must not come from the old snapshot.
      // (This process's own events, announced or not yet, are already in its snapshot.)
      if (page.some((event) => !pending.has(event.id) && event.origin !== origin && changesTables(event)))
        world.invalidate();
      cursor = page[page.length - 1]?.id ?? cursor;
      hub.publish(out);
      if (page.length < PAGE) break;
    }
    flush();
  };
  const readAcrossGap = async () => {
    gapTimer = null;
    if (pending.size > 0) await readNew();
  };

  // Commits resolve in any order: an event whose predecessor (this process's, most likely) has
  // not been announced yet waits for it, briefly, instead of reading the store and taking its own
  // process's change for another's (which would make the snapshot load every table again).
  hub.sequenceWith(
    (own) =>
      new Promise<void>((resolve) => {
        void serially(async () => {
          for (const event of own) if (event.id > cursor) pending.set(event.id, event);
          waiters.push({ upTo: Math.max(0, ...own.map((event) => event.id)), resolve });
          flush();
        });
      }),
  );

  // Notifications come in bursts (one per commit, this process's own included): one read waiting
  // in the queue serves them all. It waits a moment first, so that this process's own commits,
  // whose NOTIFY arrives about when their announcement does, are published as its own.
  let waiting: Promise<void> | null = null;
  /** The highest id a notification named: a read is needed only while the cursor is below it. */
  let notified = cursor;
  let polled = false;
  const catchUp = () => {
    polled = true;
    return later();
  };
  const later = () => {
    waiting ??= new Promise<void>((resolve) => setTimeout(resolve, gapMs)).then(() =>
      serially(() => {
        waiting = null;
        const needed = polled || notified > cursor;
        polled = false;
        return needed ? readNew() : Promise.resolve();
      }),
    );
    return waiting;
  };
  let unlisten: Unlisten | null = null;
  const listen = async () => {
    try {
      unlisten = await store.db.listen(EVENTS_CHANNEL, (payload) => {
        notified = Math.max(notified, Number(payload) || 0);
        // This process's own commits are usually published by the time the read would run.
        if (notified > cursor) void later();
      });
    } catch (err) {
      log.warn({ err }, "event relay cannot listen (polling only until it can)");
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
      if (gapTimer !== null) clearTimeout(gapTimer);
      hub.sequenceWith(null);
      await unlisten?.().catch(() => undefined);
      await queue;
      for (const w of waiters) w.resolve();
      waiters = [];
    },
  };
}

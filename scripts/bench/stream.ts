// What the end-to-end benches (cold start, autoscaling) share: the server's event stream as it
// arrives, each event stamped with this process's clock, and a wait for a condition with a deadline.
import { liveEvents, type ReceivedEvent } from "@llmgw/client/events";

export type StampedEvent = ReceivedEvent & { at: number };

/** Every event of the server's stream, stamped with performance.now() as it arrives here. */
export async function listen(url: string, signal: AbortSignal): Promise<StampedEvent[]> {
  const events: StampedEvent[] = [];
  // Resolves on the server's opening comment: from then on the stream has every event.
  return new Promise((resolve, reject) => {
    const reading = liveEvents(url, { signal, reconnectMs: null, onComment: () => resolve(events) });
    void (async () => {
      for await (const event of reading) events.push({ ...event, at: performance.now() });
    })().then(() => reject(new Error(`${url}: the event stream ended`)), reject);
  });
}

/** Polls `check` every 50 ms until it answers something other than null; throws after `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | null> | T | null,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== null) return found;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

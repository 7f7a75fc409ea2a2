import { Hono } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import type { EventHub, LiveEvent } from "../events/hub";

export type EventLog = {
  since(id: number, limit: number): Promise<LiveEvent[]>;
};

const HEARTBEAT_MS = 15_000;
const REPLAY_PAGE = 1000;

/**
 * One multiplexed stream of every change. A client that reconnects with `Last-Event-ID` gets what
 * it missed from the event log, then the live tail; the listener is attached before the replay
 * so nothing falls between the two, and ids already sent are skipped.
 */
export function eventRoutes(hub: EventHub, log: EventLog, heartbeatMs = HEARTBEAT_MS) {
  return new Hono().get("/", (c) => {
    const header = c.req.header("last-event-id") ?? c.req.query("lastEventId");
    const resumeFrom = header !== undefined && /^\d+$/.test(header) ? Number(header) : null;
    return streamSSE(c, async (stream) => {
      const pending: LiveEvent[] = [];
      let wake: (() => void) | null = null;
      const unsubscribe = hub.subscribe((event) => {
        pending.push(event);
        wake?.();
      });
      stream.onAbort(() => {
        unsubscribe();
        wake?.();
      });
      try {
        let sent = resumeFrom ?? 0;
        await stream.write(": llmgw events\n\n");
        if (resumeFrom !== null) {
          for (;;) {
            const page = await log.since(sent, REPLAY_PAGE);
            for (const event of page) sent = await send(stream, event, sent);
            if (page.length < REPLAY_PAGE) break;
          }
        } else {
          sent = -1;
        }
        while (!stream.aborted) {
          if (pending.length === 0) {
            const beat = await new Promise<boolean>((resolve) => {
              const timer = setTimeout(() => resolve(true), heartbeatMs);
              wake = () => {
                clearTimeout(timer);
                resolve(false);
              };
            });
            wake = null;
            if (beat && !stream.aborted) await stream.write(": heartbeat\n\n");
            continue;
          }
          for (const event of pending.splice(0)) sent = await send(stream, event, sent);
        }
      } finally {
        unsubscribe();
      }
    });
  });
}

async function send(stream: SSEStreamingApi, event: LiveEvent, sent: number): Promise<number> {
  // Live events seen during the replay arrive twice; ids only move forward.
  if (sent >= 0 && event.id <= sent) return sent;
  await stream.writeSSE({ id: String(event.id), event: event.type, data: JSON.stringify(event.data) });
  return event.id;
}

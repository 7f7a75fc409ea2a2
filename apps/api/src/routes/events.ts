import { type Logger, silentLogger } from "@llmgw/log";
import { type Context, Hono } from "hono";
import { Broadcast } from "../events/broadcast";
import type { EventHub } from "../events/eventHub";
import { type EventLog, OpenStream } from "../events/openStream";

export type { EventLog } from "../events/openStream";

const HEARTBEAT_MS = 15_000;
/**
 * What may wait for one client before its stream is dropped (it reconnects with Last-Event-ID and
 * is replayed the rest). Events are small, so this is hundreds behind; SPEC is silent on a figure.
 */
const MAX_BUFFERED_BYTES = 1024 * 1024;

export type EventRouteOptions = { heartbeatMs?: number; maxBufferedBytes?: number; logger?: Logger };

/**
 * One multiplexed stream of every change. A client that reconnects with `Last-Event-ID` gets what
 * it missed from the event log, then the live tail; the stream is given live events before the
 * replay starts (it holds them until the replay is out) so nothing falls between the two, and ids
 * already sent are skipped.
 */
export function eventStream(hub: EventHub, log: EventLog, options: EventRouteOptions = {}) {
  const {
    heartbeatMs = HEARTBEAT_MS,
    maxBufferedBytes = MAX_BUFFERED_BYTES,
    logger = silentLogger(),
  } = options;
  const broadcast = new Broadcast(hub, heartbeatMs);
  return (c: Context): Response => {
    const header = c.req.header("last-event-id") ?? c.req.query("lastEventId");
    const resumeFrom = header !== undefined && /^\d+$/.test(header) ? Number(header) : null;
    // Under @hono/node-server the Node response is in the env; in process (app.request) there is none.
    const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
    const stream = new OpenStream({ outgoing, resumeFrom, maxBufferedBytes });
    broadcast.add(stream);
    if (resumeFrom !== null)
      stream
        .replay(log)
        .catch((err: unknown) => logger.error({ err, resumeFrom }, "replaying events failed"));
    return stream.response;
  };
}

/** The stream on its own, at `/`: for tests that watch a hub without a whole app. */
export const eventRoutes = (hub: EventHub, log: EventLog, options: EventRouteOptions = {}) =>
  new Hono().get("/", eventStream(hub, log, options));

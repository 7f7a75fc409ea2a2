import type { EphemeralEvent } from "@llmgw/domain";
import type { CommittedEvent } from "./eventHub";

/** The comment a stream opens with: the client knows it is subscribed. */
export const OPENING = Buffer.from(": llmgw events\n\n");
export const HEARTBEAT = Buffer.from(": heartbeat\n\n");

const frames = new WeakMap<CommittedEvent, Buffer>();

/**
 * An event as the bytes every stream sends, encoded once: the hub hands the same event object to
 * each open stream, so 10,000 streams cost one JSON.stringify, not 10,000. Kept while the event
 * object lives (a replay's events are fresh objects, encoded for the one stream replaying them).
 */
export function frameOf(event: CommittedEvent): Buffer {
  let frame = frames.get(event);
  if (frame === undefined) {
    // JSON.stringify escapes line breaks, so the data is one `data:` line.
    const data = JSON.stringify(event.data) ?? "null";
    frame = Buffer.from(`id: ${event.id}\nevent: ${event.type}\ndata: ${data}\n\n`);
    frames.set(event, frame);
  }
  return frame;
}

/**
 * An unstored event's bytes: no `id:` line, so the client's last event id (what it resumes from)
 * stays the last stored event's. Encoded once per event by the broadcast, shared by every stream.
 */
export function ephemeralFrameOf(event: EphemeralEvent): Buffer {
  return Buffer.from(`event: ${event.type}\ndata: ${JSON.stringify(event.data) ?? "null"}\n\n`);
}

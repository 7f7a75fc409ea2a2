import { isEventStream } from "@llmgw/contract";
import { type LiveEvent, liveEventSchema } from "@llmgw/domain";

// The one reader of llmgw's event stream (`GET /api/v1/events`, SPEC §3) outside a browser's
// EventSource: ctl, the agent, tests and benches read it here. Three layers, each usable alone:
// `sseFrames` splits a `text/event-stream` body into frames (the WHATWG parsing rules), `liveEventOf`
// types one frame by the domain's union, and `liveEvents` opens the stream with fetch, resuming
// with Last-Event-ID after a drop, until aborted.

/** One dispatched SSE event, or a comment line (`: heartbeat`), as the server wrote it. */
export type SseFrame =
  | { kind: "event"; id: string | null; event: string; data: string }
  | { kind: "comment"; text: string };

/** A stream event typed by the domain's union; `id` is null for an ephemeral one (`model.traffic`). */
export type ReceivedEvent = LiveEvent & { id: number | null };

/**
 * The frames of a `text/event-stream` body as they arrive. Lines end in LF, CRLF or CR; `data:`
 * lines join with "\n"; a frame without `data:` dispatches nothing; `retry:` and unknown fields
 * are ignored. `id` is the frame's own `id:` line (null without one), not the last one seen.
 * Aborting `signal` cancels the body, wherever the reading waits, and ends the frames.
 */
export async function* sseFrames(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<SseFrame> {
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  if (signal?.aborted) cancel();
  signal?.addEventListener("abort", cancel, { once: true });
  const decoder = new TextDecoder();
  let buffer = "";
  let id: string | null = null;
  let event = "";
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      // A CR at the very end may be the first half of a CRLF still on its way.
      for (let end = lineEnd(buffer); end >= 0; end = lineEnd(buffer)) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(buffer[end] === "\r" && buffer[end + 1] === "\n" ? end + 2 : end + 1);
        if (line === "") {
          if (data.length > 0) yield { kind: "event", id, event: event || "message", data: data.join("\n") };
          id = null;
          event = "";
          data = [];
          continue;
        }
        const colon = line.indexOf(":");
        if (colon === 0) {
          yield { kind: "comment", text: line.slice(1).trim() };
          continue;
        }
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "id") id = value;
        else if (field === "event") event = value;
        else if (field === "data") data.push(value);
      }
    }
  } finally {
    signal?.removeEventListener("abort", cancel);
    await reader.cancel().catch(() => undefined);
  }
}

function lineEnd(buffer: string): number {
  for (let i = 0; i < buffer.length; i++) {
    const c = buffer[i];
    if (c === "\n") return i;
    if (c === "\r") return i + 1 < buffer.length ? i : -1;
  }
  return -1;
}

/**
 * A frame as one of the domain's events, parsed by its schema: the stream comes from another
 * process (perhaps another version), so it is checked here, once, and trusted after. Null for a
 * type this client does not know (a newer server), or data that is not that type's.
 */
export function liveEventOf(frame: { id: string | null; event: string; data: string }): ReceivedEvent | null {
  let data: unknown;
  try {
    data = JSON.parse(frame.data);
  } catch {
    return null;
  }
  const parsed = liveEventSchema.safeParse({ type: frame.event, data });
  if (!parsed.success) return null;
  const id = frame.id !== null && /^\d+$/.test(frame.id) ? Number(frame.id) : null;
  return { ...parsed.data, id };
}

export type LiveEventsOptions = {
  /** Resume after this id: the server replays what came after it first. */
  lastEventId?: number | null;
  /** Ends the stream (and any wait to reconnect); the iteration then finishes without an error. */
  signal?: AbortSignal;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /** Wait before reconnecting after the stream ended or failed, in ms; null does not reconnect. */
  reconnectMs?: number | null;
  /** Told of each comment (`llmgw events` on opening, `heartbeat`). */
  onComment?: (text: string) => void;
};

/**
 * Every event of the stream at `url`, typed, in order. After a drop it reconnects with the last
 * id it saw as `Last-Event-ID`, so no stored event is missed or repeated (ephemeral ones are not
 * replayed). An answer other than 2xx `text/event-stream` throws: it is not a drop to retry.
 */
export async function* liveEvents(
  url: string | URL,
  options: LiveEventsOptions = {},
): AsyncGenerator<ReceivedEvent> {
  const { signal, headers = {}, reconnectMs = 1000, onComment } = options;
  const request = options.fetch ?? fetch;
  let lastEventId = options.lastEventId ?? null;
  while (!signal?.aborted) {
    try {
      const res = await request(url, {
        headers: {
          Accept: "text/event-stream",
          ...headers,
          ...(lastEventId === null ? {} : { "Last-Event-ID": String(lastEventId) }),
        },
        ...(signal ? { signal } : {}),
      });
      if (!res.ok || !res.body) throw new EventStreamRefused(`the event stream answered ${res.status}`);
      const type = res.headers.get("content-type") ?? "";
      if (!isEventStream(type)) throw new EventStreamRefused(`the event stream is ${type}`);
      for await (const frame of sseFrames(res.body, signal)) {
        if (frame.kind === "comment") {
          onComment?.(frame.text);
          continue;
        }
        const event = liveEventOf(frame);
        if (event === null) continue;
        if (event.id !== null) lastEventId = event.id;
        yield event;
      }
    } catch (err) {
      if (signal?.aborted) return;
      if (err instanceof EventStreamRefused || reconnectMs === null) throw err;
    }
    if (reconnectMs === null) return;
    await pause(reconnectMs, signal);
  }
}

/** The server answered, but not with an event stream (401, 404, …): reconnecting will not help. */
export class EventStreamRefused extends Error {
  override name = "EventStreamRefused";
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}

import { sseFrames } from "@llmgw/client/events";

// Reads a Server-Sent Events response as it arrives (the client's one reader, `sseFrames`), so a
// test awaits the event it expects (with a deadline) instead of sleeping and hoping it came. The
// frames stay as the server wrote them (`data` a string): tests check the wire, ids and bytes.

export interface SseEvent {
  id: string | null;
  event: string;
  data: string;
}

const DEFAULT_WAIT_MS = 5000;

export class EventStream {
  readonly comments: string[] = [];
  readonly #queue: SseEvent[] = [];
  readonly #closing = new AbortController();
  #wake: (() => void) | null = null;
  #ended: Error | null = null;

  /**
   * Opens `GET <url>` with fetch; resolves once the server's opening comment arrived (it is
   * subscribed). `storedOnly` leaves out ephemeral events (no id: `model.traffic`,
   * `headroom.changed`), which a real server sends among the stored ones whenever it likes.
   */
  static async open(
    url: string,
    lastEventId?: string,
    options: { ms?: number; storedOnly?: boolean } = {},
  ): Promise<EventStream> {
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (lastEventId !== undefined) headers["Last-Event-ID"] = lastEventId;
    return EventStream.of(await fetch(url, { headers }), options.ms, options.storedOnly);
  }

  /** Wraps a response already made (an in-process `app.request`, say). */
  static async of(res: Response, ms = DEFAULT_WAIT_MS, storedOnly = false): Promise<EventStream> {
    if (!res.ok || !res.body) throw new Error(`the event stream answered ${res.status}`);
    if (!res.headers.get("content-type")?.startsWith("text/event-stream")) {
      throw new Error(`the event stream is ${res.headers.get("content-type")}`);
    }
    const stream = new EventStream(res.body, storedOnly);
    await stream.#waitFor(
      () => stream.comments.length > 0 || stream.#queue.length > 0,
      ms,
      "the opening comment",
    );
    return stream;
  }

  readonly #storedOnly: boolean;

  private constructor(body: ReadableStream<Uint8Array>, storedOnly: boolean) {
    this.#storedOnly = storedOnly;
    void this.#pump(body);
  }

  /** The next event, whatever it is. */
  async next(ms = DEFAULT_WAIT_MS): Promise<SseEvent> {
    await this.#waitFor(() => this.#queue.length > 0, ms, "an event");
    const event = this.#queue.shift();
    if (!event) throw new Error("no event");
    return event;
  }

  /** Every event up to and including the first that matches. */
  async until(match: (event: SseEvent) => boolean, ms = DEFAULT_WAIT_MS): Promise<SseEvent[]> {
    const deadline = Date.now() + ms;
    const seen: SseEvent[] = [];
    for (;;) {
      const event = await this.next(Math.max(1, deadline - Date.now()));
      seen.push(event);
      if (match(event)) return seen;
    }
  }

  /** The next `count` events. */
  async take(count: number, ms = DEFAULT_WAIT_MS): Promise<SseEvent[]> {
    const deadline = Date.now() + ms;
    const taken: SseEvent[] = [];
    while (taken.length < count) taken.push(await this.next(Math.max(1, deadline - Date.now())));
    return taken;
  }

  /** Waits for a comment line (`: heartbeat`), by its text. */
  async comment(text: string, ms = DEFAULT_WAIT_MS): Promise<void> {
    await this.#waitFor(() => this.comments.includes(text), ms, `the comment "${text}"`);
  }

  async close(): Promise<void> {
    this.#closing.abort();
  }

  async #pump(body: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const frame of sseFrames(body, this.#closing.signal)) {
        if (frame.kind === "comment") this.comments.push(frame.text);
        else if (this.#storedOnly && frame.id === null) continue;
        else this.#queue.push({ id: frame.id, event: frame.event, data: frame.data });
        this.#wake?.();
      }
      this.#ended = new Error("the event stream ended");
    } catch (err) {
      this.#ended = err instanceof Error ? err : new Error(String(err));
    }
    this.#wake?.();
  }

  async #waitFor(ready: () => boolean, ms: number, what: string): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ready()) {
      if (this.#ended) throw new Error(`waiting for ${what}: ${this.#ended.message}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
    }
  }
}

/** An event's data as JSON, for matching on fields. */
export function dataOf(event: SseEvent): Record<string, unknown> {
  const data: unknown = JSON.parse(event.data);
  return typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
}

/** An event with its data parsed: a replay from the store (jsonb) orders keys its own way. */
export function parsed(event: SseEvent): { id: string | null; event: string; data: unknown } {
  return { id: event.id, event: event.event, data: JSON.parse(event.data) };
}

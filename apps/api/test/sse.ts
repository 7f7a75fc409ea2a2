// Reads a Server-Sent Events response as it arrives, so a test awaits the event it expects
// (with a deadline) instead of sleeping and hoping it came.

export interface SseEvent {
  id: string | null;
  event: string;
  data: string;
}

const DEFAULT_WAIT_MS = 5000;

export class EventStream {
  readonly comments: string[] = [];
  readonly #queue: SseEvent[] = [];
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #wake: (() => void) | null = null;
  #ended: Error | null = null;

  /** Opens `GET <url>` with fetch; resolves once the server's opening comment arrived (it is subscribed). */
  static async open(url: string, lastEventId?: string, ms = DEFAULT_WAIT_MS): Promise<EventStream> {
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (lastEventId !== undefined) headers["Last-Event-ID"] = lastEventId;
    return EventStream.of(await fetch(url, { headers }), ms);
  }

  /** Wraps a response already made (an in-process `app.request`, say). */
  static async of(res: Response, ms = DEFAULT_WAIT_MS): Promise<EventStream> {
    if (!res.ok || !res.body) throw new Error(`the event stream answered ${res.status}`);
    if (!res.headers.get("content-type")?.startsWith("text/event-stream")) {
      throw new Error(`the event stream is ${res.headers.get("content-type")}`);
    }
    const stream = new EventStream(res.body.getReader());
    await stream.#waitFor(
      () => stream.comments.length > 0 || stream.#queue.length > 0,
      ms,
      "the opening comment",
    );
    return stream;
  }

  private constructor(reader: ReadableStreamDefaultReader<Uint8Array>) {
    this.#reader = reader;
    void this.#pump();
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
    await this.#reader.cancel().catch(() => undefined);
  }

  async #pump(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await this.#reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          this.#block(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
        }
        this.#wake?.();
      }
      this.#ended = new Error("the event stream ended");
    } catch (err) {
      this.#ended = err instanceof Error ? err : new Error(String(err));
    }
    this.#wake?.();
  }

  #block(block: string): void {
    let id: string | null = null;
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) {
        this.comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length > 0) this.#queue.push({ id, event, data: data.join("\n") });
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

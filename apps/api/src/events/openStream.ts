import type { ServerResponse } from "node:http";
import type { CommittedEvent } from "./eventHub";
import { frameOf, HEARTBEAT, OPENING } from "./frame";

export type EventLog = {
  since(id: number, limit: number): Promise<CommittedEvent[]>;
};

const REPLAY_PAGE = 1000;
/** No read-ahead: a pull means the reader has taken (and the pump written) every chunk before. */
const NO_READ_AHEAD = new ByteLengthQueuingStrategy({ highWaterMark: 0 });
const open = new WeakMap<ReadableStream<Uint8Array>, OpenStream>();

/** The open stream behind an event-stream response (auth/liveStreams.ts ends it on sign-out). */
export function openStreamOf(res: Response | undefined): OpenStream | undefined {
  return res?.body ? open.get(res.body) : undefined;
}

/** Under @hono/node-server, `c.env.outgoing` (recognised by shape: this file opens no connections). */
function isNodeResponse(value: unknown): value is ServerResponse {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<ServerResponse>;
  return typeof candidate.write === "function" && typeof candidate.headersSent === "boolean";
}

/**
 * One client's `GET /events`: what it was last sent, and the bytes on their way to it.
 *
 * The response is an ordinary streaming Response, so every middleware sees and adjusts it as any
 * other; @hono/node-server pumps its body into the socket. Once that pump has written the head and
 * asks for more, the stream writes to the Node `ServerResponse` itself: an event to 10,000 streams
 * is then 10,000 `write`s of one shared Buffer, with no promise or web-stream read per stream. In
 * process (`app.request`, no socket) every chunk goes through the body stream.
 */
export class OpenStream {
  readonly response: Response;
  /** The id last sent; -1 before the first when the client did not resume. */
  #sent: number;
  /** Live events that arrived during the replay (sent after it), or null once live. */
  #held: CommittedEvent[] | null;
  #heldBytes = 0;
  /** Heartbeat ticks (two per heartbeat interval) since anything was written. */
  #quietTicks = 0;
  #closed = false;
  readonly #outgoing: ServerResponse | null;
  readonly #maxBuffered: number;
  #controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  /** The body's reader waits for a chunk: everything enqueued so far has been taken. */
  #readWaiting = false;
  /** Writing to `#outgoing` itself (the pump has written the head and everything enqueued). */
  #direct = false;
  #wake: (() => void) | null = null;
  readonly #onClose: (() => void)[] = [];

  constructor(options: { outgoing: unknown; resumeFrom: number | null; maxBufferedBytes: number }) {
    const { outgoing, resumeFrom, maxBufferedBytes } = options;
    this.#outgoing = isNodeResponse(outgoing) ? outgoing : null;
    this.#maxBuffered = maxBufferedBytes;
    this.#sent = resumeFrom ?? -1;
    this.#held = resumeFrom === null ? null : [];
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => {
          this.#readWaiting = true;
          this.#wake?.();
        },
        cancel: () => this.#finish(),
      },
      NO_READ_AHEAD,
    );
    open.set(body, this);
    this.response = new Response(body, {
      headers: {
        "Content-Type": "text/event-stream",
        "Cache-Control": "no-cache",
        Connection: "keep-alive",
        // Tells the node-server pump not to wait for a second chunk (to compute a length) before the head.
        "Transfer-Encoding": "chunked",
      },
    });
    this.#outgoing?.once("close", () => this.#finish());
    this.#write(OPENING);
  }

  /** Calls `listener` once when the stream ends, however it ends. */
  whenClosed(listener: () => void): void {
    if (this.#closed) listener();
    else this.#onClose.push(listener);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Sends what the client missed after `resumeFrom`, then the events held meanwhile, then goes live.
   * A failed replay ends the stream (the client reconnects and asks again) and rejects.
   */
  async replay(log: EventLog): Promise<void> {
    try {
      for (;;) {
        const page = await log.since(this.#sent, REPLAY_PAGE);
        for (const event of page) this.#send(event, frameOf(event));
        if (page.length < REPLAY_PAGE || this.#closed) break;
        // A replay is paced by the client: the next page waits until this one is mostly out.
        while (!this.#closed && this.#buffered() > this.#maxBuffered) await this.#room();
      }
      const held = this.#held ?? [];
      this.#held = null;
      for (const event of held) this.#send(event, frameOf(event));
    } catch (err) {
      this.end();
      throw err;
    }
  }

  /** A live event (`frame` is `frameOf(event)`, shared by every stream). */
  deliver(event: CommittedEvent, frame: Buffer): void {
    if (this.#closed) return;
    if (this.#held) {
      this.#held.push(event);
      this.#heldBytes += frame.byteLength;
      if (this.#heldBytes > this.#maxBuffered) this.drop();
      return;
    }
    this.#send(event, frame);
    if (this.#buffered() > this.#maxBuffered) this.drop();
  }

  /**
   * An unstored event's frame (`ephemeralFrameOf`). Not held during a replay: by the time the
   * replay is out its figures are old, and the next one is on its way.
   */
  deliverEphemeral(frame: Buffer): void {
    if (this.#closed || this.#held) return;
    this.#write(frame);
    if (this.#buffered() > this.#maxBuffered) this.drop();
  }

  /** A heartbeat tick (two per interval): a comment once a whole interval passed with nothing sent. */
  beat(): void {
    if (this.#closed || this.#held) return;
    // Two quiet ticks make a heartbeat interval of silence: at most that long without a byte.
    if (++this.#quietTicks >= 2) this.#write(HEARTBEAT);
    if (this.#buffered() > this.#maxBuffered) this.drop();
  }

  /** Closes the stream after what was already written (sign-out, a revoked token, session expiry). */
  end(): void {
    if (this.#closed) return;
    this.#finish();
    try {
      // Resolves the pump's pending read as done; it then ends the response.
      this.#controller?.close();
    } catch {
      // Closed already: the reader went away.
    }
  }

  /**
   * Cuts off a client that does not read what it is sent: what waits for it would otherwise grow
   * without bound. Its EventSource reconnects with Last-Event-ID and is replayed what it missed.
   */
  drop(): void {
    if (this.#closed) return;
    this.#finish();
    if (this.#direct) this.#outgoing?.destroy();
    else this.#controller?.error(new Error("the client reads the event stream too slowly"));
  }

  #send(event: CommittedEvent, frame: Buffer): void {
    // Live events seen during the replay arrive twice; ids only move forward.
    if (event.id <= this.#sent) return;
    this.#sent = event.id;
    this.#write(frame);
  }

  #write(chunk: Uint8Array): void {
    if (this.#closed) return;
    this.#quietTicks = 0;
    const outgoing = this.#outgoing;
    if (!this.#direct && outgoing !== null && this.#readWaiting && outgoing.headersSent) this.#direct = true;
    if (this.#direct) {
      // Destroyed a moment ago: its "close" (which finishes this stream) is on its way.
      if (outgoing !== null && !outgoing.destroyed) outgoing.write(chunk);
    } else {
      this.#readWaiting = false;
      this.#controller?.enqueue(chunk);
    }
  }

  /** Bytes written and not yet taken by the client's socket. */
  #buffered(): number {
    if (this.#direct) return this.#outgoing?.writableLength ?? 0;
    return -(this.#controller?.desiredSize ?? 0);
  }

  /** Resolves when some of what is buffered has gone out, or the stream closed. */
  #room(): Promise<void> {
    return new Promise((resolve) => {
      const outgoing = this.#direct ? this.#outgoing : null;
      const wake = () => {
        this.#wake = null;
        outgoing?.off("drain", wake);
        resolve();
      };
      this.#wake = wake;
      outgoing?.once("drain", wake);
    });
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#held = null;
    this.#wake?.();
    for (const listener of this.#onClose.splice(0)) listener();
  }
}

import type { ServerResponse } from "node:http";

// Where one answer of the request path goes (SPEC §7): Node's response under a listener, a web
// Response in process. Every answer is written through this, refusals included, by one writer
// (answer.ts), so both share usage counting, the end, and the error event.

/** An answer's head: names and values as Node's `writeHead` takes them, one after the other. */
export type Head = (string | number)[];

export interface AnswerSink {
  /** Whether the head has gone out: the status can no longer change. */
  readonly begun: boolean;
  /** The status the head said (0 before it). */
  readonly status: number;
  /** Writes the head: `fixed` (the app's own headers) and then the answer's. */
  head(status: number, headers: Head): void;
  /** A chunk of the body; false when the client's buffer is full (go on at `onDrain`). */
  write(chunk: Uint8Array): boolean;
  onDrain(resume: () => void): void;
  end(chunk?: Uint8Array): void;
  /** Cuts the answer off: the only way left to say it failed once a head and body went out. */
  cut(): void;
  /** The client went away: nothing more is written, and nobody waits for an answer. */
  abandon(reason: unknown): void;
}

/** Node's response itself: the head written once, each chunk with the socket's backpressure. */
export class NodeSink implements AnswerSink {
  status = 0;
  constructor(
    private readonly out: ServerResponse,
    /** Headers every answer of the app carries (request id, security headers), name then value. */
    private readonly fixed: Head,
  ) {}

  get begun(): boolean {
    return this.status !== 0;
  }

  head(status: number, headers: Head): void {
    this.status = status;
    if (this.out.destroyed) return;
    this.out.writeHead(status, headers.length === 0 ? this.fixed : (this.fixed.concat(headers) as string[]));
  }

  write(chunk: Uint8Array): boolean {
    return this.out.destroyed || this.out.write(chunk);
  }

  onDrain(resume: () => void): void {
    if (this.out.destroyed) resume();
    else this.out.once("drain", resume);
  }

  end(chunk?: Uint8Array): void {
    if (this.out.destroyed || this.out.writableEnded) return;
    if (chunk) this.out.end(chunk);
    else this.out.end();
  }

  cut(): void {
    this.out.destroy();
  }

  abandon(): void {
    if (!this.out.destroyed) this.out.destroy();
  }
}

/** Statuses whose answer has no body (a web Response refuses one). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A web Response (in process, `app.request`): `response` resolves when the head is written, with a
 * body that passes chunks on as they are written and pulls no faster than its reader reads.
 */
export class WebSink implements AnswerSink {
  status = 0;
  readonly response: Promise<Response>;
  #resolve: (response: Response) => void = () => {};
  #reject: (reason: unknown) => void = () => {};
  #controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  #drain: (() => void) | null = null;
  #closed = false;

  constructor(
    private readonly fixed: Head,
    /** The reader let go of the body: the client is gone. */
    private readonly onCancel: () => void,
    /** A HEAD request: the answer has a head only. */
    private readonly headOnly = false,
  ) {
    this.response = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  get begun(): boolean {
    return this.status !== 0;
  }

  head(status: number, headers: Head): void {
    this.status = status;
    const all = new Headers();
    const pairs = this.fixed.concat(headers);
    for (let i = 0; i + 1 < pairs.length; i += 2) all.append(String(pairs[i]), String(pairs[i + 1]));
    const body =
      this.headOnly || NO_BODY.has(status)
        ? null
        : new ReadableStream<Uint8Array>(
            {
              start: (controller) => {
                this.#controller = controller;
              },
              pull: () => {
                const drain = this.#drain;
                this.#drain = null;
                drain?.();
              },
              cancel: () => {
                this.#closed = true;
                this.#drain?.();
                this.onCancel();
              },
            },
            { highWaterMark: 0 },
          );
    if (body === null) this.#closed = true;
    this.#resolve(new Response(body, { status, headers: all }));
  }

  write(chunk: Uint8Array): boolean {
    if (this.#closed || !this.#controller) return true;
    this.#controller.enqueue(chunk);
    return (this.#controller.desiredSize ?? 0) > 0;
  }

  onDrain(resume: () => void): void {
    if (this.#closed) resume();
    else this.#drain = resume;
  }

  end(chunk?: Uint8Array): void {
    if (this.#closed) return;
    this.#closed = true;
    if (chunk) this.#controller?.enqueue(chunk);
    this.#controller?.close();
  }

  cut(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#controller?.error(new Error("the replica failed mid-answer"));
  }

  /** Before the head: whoever waits for the Response hears why (the abort's reason, as fetch does). */
  abandon(reason: unknown): void {
    if (!this.begun) {
      this.#closed = true;
      this.#reject(reason);
      return;
    }
    this.cut();
  }
}

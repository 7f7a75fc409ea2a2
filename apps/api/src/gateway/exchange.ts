import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../auth/guards";
import { discardRest } from "./discard";
import { joined, tooLarge } from "./request";
import { type AnswerSink, type Head, NodeSink, WebSink } from "./sink";

/**
 * One request on the request path as its own small app sees it, from Node's request (under a
 * listener) or a web Request (in process): what it says of itself, its body, where its answer
 * goes, and whether its client is still there.
 */
export interface Exchange extends Caller {
  /** `<path>?<query>` as the request came (the engine gets the same). */
  readonly path: string;
  /** The path alone: what routing matches. */
  readonly pathname: string;
  readonly sink: AnswerSink;
  /** The client went away before its answer was out. */
  readonly gone: boolean;
  /** Runs `then` once if the client goes away; returns how to stop listening. */
  onGone(then: () => void): () => void;
  /** Lets the answer go: the client went away. */
  abandon(): void;
  /** The whole body, at most `limitBytes` (413 beyond, the rest not read). */
  readBody(limitBytes: number): Promise<Uint8Array>;
}

/** `<path>?<query>` of an absolute URL (as `new URL(url)` gives it, without parsing the rest). */
export function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme === -1 ? 0 : scheme + 3);
  if (start === -1) return "/";
  const hash = url.indexOf("#", start);
  let end = hash === -1 ? url.length : hash;
  if (url.charCodeAt(end - 1) === 63 /* ? */) end--;
  return url.slice(start, end);
}

const withoutQuery = (path: string) => {
  const query = path.indexOf("?");
  return query === -1 ? path : path.slice(0, query);
};

/** Listeners of one request's client going away, called once. */
class Departure {
  gone = false;
  #then: (() => void)[] = [];

  on(then: () => void): () => void {
    if (this.gone) {
      then();
      return () => {};
    }
    this.#then.push(then);
    return () => {
      const at = this.#then.indexOf(then);
      if (at >= 0) this.#then.splice(at, 1);
    };
  }

  leave(): void {
    if (this.gone) return;
    this.gone = true;
    for (const then of this.#then.splice(0)) then();
  }
}

/** Under @hono/node-server: read from Node's request, answered on Node's response itself. */
export class NodeExchange implements Exchange {
  readonly method: string;
  readonly path: string;
  readonly pathname: string;
  readonly sink: NodeSink;
  readonly #departure = new Departure();

  constructor(
    /** The URL as the server built it (normalised: the path routing saw). */
    readonly url: string,
    private readonly incoming: IncomingMessage,
    private readonly outgoing: ServerResponse,
    fixed: Head,
  ) {
    this.method = incoming.method ?? "GET";
    this.path = pathOf(url);
    this.pathname = withoutQuery(this.path);
    this.sink = new NodeSink(outgoing, fixed);
    outgoing.once("close", () => {
      if (!outgoing.writableFinished) this.#departure.leave();
    });
  }

  get gone(): boolean {
    return this.#departure.gone;
  }

  onGone(then: () => void): () => void {
    return this.#departure.on(then);
  }

  abandon(): void {
    this.sink.abandon();
  }

  /**
   * A body over the limit is not kept: the connection closes after the 413, so the bytes left on
   * it are never taken for the next request, but only once the client has sent them (read and
   * dropped, the whole body up to twice the limit): closed earlier, the client may never read its 413.
   */
  #unread(limitBytes: number, read: number) {
    this.outgoing.shouldKeepAlive = false;
    discardRest(this.incoming, Math.max(0, 2 * limitBytes - read));
    return tooLarge(limitBytes);
  }

  header(name: string): string | undefined {
    const value = this.incoming.headers[name];
    return typeof value === "string" ? value : value?.join(", ");
  }

  readBody(limitBytes: number): Promise<Uint8Array> {
    const incoming = this.incoming;
    const declared = Number(incoming.headers["content-length"] ?? Number.NaN);
    if (declared > limitBytes) return Promise.reject(this.#unread(limitBytes, 0));
    if (incoming.readableEnded) return Promise.resolve(new Uint8Array());
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const stop = () => {
        incoming.off("data", onData);
        incoming.off("end", onEnd);
        incoming.off("error", onFailed);
        incoming.off("close", onFailed);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size > limitBytes) {
          stop();
          incoming.pause();
          reject(this.#unread(limitBytes, size));
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = () => {
        stop();
        resolve(joined(chunks, size));
      };
      const onFailed = (err?: unknown) => {
        if (incoming.readableEnded) return onEnd();
        stop();
        this.#departure.leave();
        reject(err instanceof Error ? err : new Error("the client went away before the whole body came"));
      };
      incoming.on("data", onData);
      incoming.on("end", onEnd);
      incoming.on("error", onFailed);
      incoming.on("close", onFailed);
    });
  }
}

/** In process (`app.request`, the server's own bench): the web Request, answered with a Response. */
export class WebExchange implements Exchange {
  readonly method: string;
  readonly url: string;
  readonly path: string;
  readonly pathname: string;
  readonly sink: WebSink;
  readonly #departure = new Departure();

  constructor(
    private readonly request: Request,
    fixed: Head,
  ) {
    this.method = request.method;
    this.url = request.url;
    this.path = pathOf(request.url);
    this.pathname = withoutQuery(this.path);
    this.sink = new WebSink(fixed, () => this.#departure.leave(), request.method === "HEAD");
    const signal = request.signal;
    if (signal.aborted) this.#departure.leave();
    else signal.addEventListener("abort", () => this.#departure.leave(), { once: true });
  }

  get gone(): boolean {
    return this.#departure.gone;
  }

  onGone(then: () => void): () => void {
    return this.#departure.on(then);
  }

  abandon(): void {
    const { signal } = this.request;
    this.sink.abandon(
      signal.aborted ? signal.reason : new DOMException("the client went away", "AbortError"),
    );
  }

  header(name: string): string | undefined {
    return this.request.headers.get(name) ?? undefined;
  }

  async readBody(limitBytes: number): Promise<Uint8Array> {
    const declared = Number(this.request.headers.get("content-length") ?? Number.NaN);
    if (declared > limitBytes) throw tooLarge(limitBytes);
    if (!this.request.body) return new Uint8Array();
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = this.request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limitBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(limitBytes);
      }
      chunks.push(value);
    }
    return joined(chunks, size);
  }
}

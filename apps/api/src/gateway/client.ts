import type { IncomingMessage, ServerResponse } from "node:http";
import { type InferenceRequest, readInference, readInferenceFrom } from "./request";
import { type ForwardedHeaders, forwardedOf } from "./upstream";

/**
 * The client's side of one request: its path, the headers passed on, its body, and whether it is
 * still there. Under @hono/node-server everything is read from Node's request itself and the answer
 * is written straight to Node's response (`outgoing`); in process (`app.request`, no socket) from
 * the web Request, answered with a web Response.
 */
export type Client = {
  /** Aborts when the client goes away before its answer is out. */
  readonly signal: AbortSignal;
  /** `<path>?<query>` as the request came (the engine gets the same). */
  readonly path: string;
  readonly headers: ForwardedHeaders;
  read(limitBytes: number): Promise<InferenceRequest>;
  /** Node's response when the answer may be written to it directly, else null. */
  readonly outgoing: ServerResponse | null;
  /**
   * What aborts `signal`, when the request owns it (under Node): the upstream request uses it
   * too, instead of one more controller linked to it per attempt.
   */
  readonly controller: AbortController | null;
};

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

export function webClient(raw: Request): Client {
  return {
    signal: raw.signal,
    path: pathOf(raw.url),
    headers: forwardedOf(raw.headers),
    read: (limitBytes) => readInference(raw, limitBytes),
    outgoing: null,
    controller: null,
  };
}

/** `url` is the request's URL as the server built it (normalised: the path routing saw). */
export function nodeClient(url: string, incoming: IncomingMessage, outgoing: ServerResponse): Client {
  const controller = new AbortController();
  const gone = () => {
    if (!controller.signal.aborted) controller.abort(new Error("the client went away"));
  };
  outgoing.once("close", () => {
    if (!outgoing.writableFinished) gone();
  });
  return {
    signal: controller.signal,
    path: pathOf(url),
    headers: incoming.headers,
    read: (limitBytes) => readInferenceFrom(incoming, limitBytes, gone),
    outgoing,
    controller,
  };
}

import type { IncomingHttpHeaders } from "node:http";
import { isEventStream } from "@llmgw/contract";
import type { Head } from "./sink";

// What of an engine's answer head reaches the client (SPEC §7.5a): its status, `content-type`,
// `content-length` and `cache-control: no-cache`, nothing else. Cookies, redirects, CORS and
// security headers, trailers and hop-by-hop headers stay with the engine: on llmgw's origin they
// would speak for llmgw (a `Set-Cookie: llmgw_session`, an `Access-Control-Allow-Origin: *`).

/** The few facts of an engine's head that the gateway uses. */
export type EngineHead = {
  status: number;
  /** A content type fit to pass on: null when the engine sent none or one that is not well formed. */
  contentType: string | null;
  /** The declared body length, when the engine declared a sane one. */
  contentLength: number | null;
  /** It said `Cache-Control: no-cache`. */
  noCache: boolean;
  /** An event stream: passed on chunk by chunk, counted event by event. */
  streaming: boolean;
};

/** `type/subtype` and `; name=value` parameters, nothing a header line could be broken with. */
const MEDIA_TYPE =
  /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(?:\s*;\s*[\w!#$&^.+-]+=(?:[\w!#$&^.+-]+|"[ !#-[\]-~]*"))*\s*$/;
/** Types a browser renders as a document (and runs scripts in), served as text instead. */
const RENDERED =
  /^\s*(?:text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|text\/xsl|[\w.-]+\/[\w.-]+\+xml)\s*(?:;|$)/i;
const AS_TEXT = "text/plain; charset=utf-8";

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export function engineHeadOf(status: number, headers: IncomingHttpHeaders): EngineHead {
  const type = first(headers["content-type"]);
  const length = first(headers["content-length"]);
  const contentType =
    type === undefined || !MEDIA_TYPE.test(type) ? null : RENDERED.test(type) ? AS_TEXT : type;
  return {
    status,
    contentType,
    contentLength: length !== undefined && /^\d{1,15}$/.test(length) ? Number(length) : null,
    noCache: first(headers["cache-control"])?.trim().toLowerCase() === "no-cache",
    streaming: isEventStream(contentType),
  };
}

/**
 * The client's head for the engine's answer: an event stream's own (SPEC §7.5: not cached, not
 * buffered by a proxy in between); `length` when the whole body is known, else the engine's
 * declared one, never an event stream's (its end may carry an error event the engine did not send).
 */
export function clientHeadOf(engine: EngineHead, length: number | null): Head {
  const head: Head = [];
  if (engine.contentType !== null) head.push("content-type", engine.contentType);
  const declared = length ?? (engine.streaming ? null : engine.contentLength);
  if (declared !== null) head.push("content-length", declared);
  if (engine.streaming) head.push("cache-control", "no-cache", "x-accel-buffering", "no");
  else if (engine.noCache) head.push("cache-control", "no-cache");
  return head;
}

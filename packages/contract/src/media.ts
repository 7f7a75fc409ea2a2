/**
 * Whether a `Content-Type` is an event stream (Server-Sent Events): the request path passes such an
 * answer on as it comes and counts its `usage` event by event, the authorization middleware does
 * not count watching one as a session's use, and the client reads the live events only from one.
 */
export function isEventStream(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  // The media type is case-insensitive and may carry parameters (`; charset=utf-8`).
  return /^\s*text\/event-stream\s*(;|$)/i.test(contentType);
}

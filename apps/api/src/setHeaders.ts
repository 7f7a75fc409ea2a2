import type { Context } from "hono";

/**
 * Sets headers on the answer a middleware wraps. One passed through from fetch has immutable
 * headers: it is copied first (the body moves to the copy, unread).
 */
export function setHeaders(c: Context, set: (headers: Headers) => void): void {
  try {
    set(c.res.headers);
  } catch {
    const copy = new Response(c.res.body, c.res);
    set(copy.headers);
    c.res = undefined;
    c.res = copy;
  }
}

import { ApiFailure, answer as answered, connect } from "@llmgw/client";

export { segment } from "@llmgw/client";

import { sessionState } from "./session";

/**
 * The dashboard's door to the API: the one typed client (`@llmgw/client`), over the page's own
 * origin with its session cookie. Each feature's `api/` file calls one route through it; nothing
 * else in the app calls `fetch`. A path, parameter or body that drifts from the server's contract
 * fails the type check here rather than in an operator's browser.
 */

export { ApiFailure };

/** Where the API is on the page's origin (the event stream's address starts here). */
export const API_BASE = "/api/v1";

// X-Requested-With tells the server a cookie-signed change comes from this page's script (a form on
// another site cannot set it), which it requires of body-less changes such as wake and drain.
export const { api } = connect({
  server: "",
  init: { credentials: "same-origin" },
  headers: { "X-Requested-With": "llmgw" },
});

/**
 * The body the contract promises, or the refusal thrown. A 401 means the session has ended (or
 * never began): the page is told, and puts the sign-in in front of it. Signing in reports its own
 * 401 (a wrong token).
 */
export async function answer<T>(
  pending: Parameters<typeof answered<T>>[0],
  { signingIn = false } = {},
): Promise<T> {
  try {
    return await answered(pending);
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 401 && !signingIn) sessionState.refused();
    throw error;
  }
}

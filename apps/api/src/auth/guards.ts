import { isLoopback } from "@llmgw/domain";
import { AppError } from "../errors";
import type { RequestLine } from "./sessionBook";

/** A request as the guards read it: its method, URL and headers (Hono's `c.req` is one). */
export type Caller = RequestLine & { method: string };

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export const isSafeMethod = (method: string) => SAFE.has(method.toUpperCase());

/**
 * A change asked for by another site's page: refused whatever the credentials (CSRF). Browsers say
 * where a request comes from in `Sec-Fetch-Site`; older ones only in `Origin`, checked when the
 * first is absent. Clients that are not browsers send neither and are not affected. This is what
 * protects a server without tokens, where a drive-by page could otherwise POST to
 * http://127.0.0.1:8080/api/v1/fleet/nodes/x/drain (a body-less POST needs no preflight).
 */
export function crossSiteRefusal(req: Caller): AppError | null {
  if (isSafeMethod(req.method)) return null;
  const site = req.header("sec-fetch-site");
  if (site !== undefined) {
    return site === "same-origin" || site === "none" ? null : crossSite(`Sec-Fetch-Site: ${site}`);
  }
  const origin = req.header("origin");
  if (origin === undefined) return null;
  let host: string | null = null;
  try {
    host = new URL(origin).host;
  } catch {
    host = null;
  }
  return host !== null && host === new URL(req.url).host
    ? null
    : crossSite(`Origin: ${origin.slice(0, 100)}`);
}

function crossSite(why: string): AppError {
  return new AppError({
    code: "forbidden",
    message: `a change may not come from another site's page (${why})`,
  });
}

/**
 * A session cookie goes with every same-site request, so a cookie-authenticated change must also
 * show it came from the dashboard's own script: a JSON body (a form cannot send one) or the
 * X-Requested-With header (a cross-origin page cannot set one without a CORS preflight, which this
 * server never grants). Covers the body-less POSTs (wake, drain, resume) and DELETEs.
 */
export function csrfRefusal(req: Caller): AppError | null {
  if (isSafeMethod(req.method)) return null;
  const type = req.header("content-type") ?? "";
  if (/^application\/([\w.-]+\+)?json\b/i.test(type)) return null;
  if ((req.header("x-requested-with") ?? "") !== "") return null;
  return new AppError({
    code: "forbidden",
    message:
      "a signed-in browser's change must come from the dashboard: send X-Requested-With or a JSON body",
  });
}

/**
 * Without tokens the server accepts every request, which is safe only because it listens on
 * loopback. A page on an attacker's name that resolves to 127.0.0.1 (DNS rebinding) would reach it
 * as same-origin, so the Host it was addressed to must be a loopback name too.
 */
export function addressedToLoopback(req: Pick<Caller, "url">): boolean {
  const url = req.url;
  // The usual names are seen without parsing the URL (every request of a server without tokens asks).
  return PLAIN_LOOPBACK_URL.test(url) || isLoopback(new URL(url).hostname);
}

/** A URL whose host is plainly a loopback name, as `new URL` would give it unchanged. */
const PLAIN_LOOPBACK_URL = /^http:\/\/(?:localhost|127\.0\.0\.1)(?::\d{1,5})?\//;

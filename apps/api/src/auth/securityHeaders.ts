import type { MiddlewareHandler } from "hono";
import { setHeaders } from "../setHeaders";

/**
 * The dashboard's page: its own scripts, styles and API only. No inline script or style (Vite's
 * build has none), no plugins, no <base> games, no framing; `data:` images for the inline favicon.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Anything else (JSON, events, weights): nothing to load, nowhere to be framed. */
export const RESOURCE_CSP = "default-src 'none'; frame-ancestors 'none'";

const EVERY_RESPONSE: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

/**
 * Security headers on every response, refusals and 404s included (it runs outside the error
 * handler). API answers are `no-store`: they carry fleet state and, once, a token's secret.
 */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const html = c.res.headers.get("content-type")?.startsWith("text/html") ?? false;
    const csp = html ? DASHBOARD_CSP : RESOURCE_CSP;
    const noStore = c.req.path.startsWith("/api/") && !c.res.headers.has("cache-control");
    setHeaders(c, (headers) => setAll(headers, csp, noStore));
  };
}

/**
 * The same headers as name, value, … for an answer written without Hono (the request path, /v1):
 * fixed, so worked out once.
 */
export const RESOURCE_HEADERS: readonly string[] = [
  ...Object.entries(EVERY_RESPONSE).flat(),
  "content-security-policy",
  RESOURCE_CSP,
];

const EVERY_RESPONSE_PAIRS = Object.entries(EVERY_RESPONSE);

function setAll(headers: Headers, csp: string, noStore: boolean): void {
  for (const [name, value] of EVERY_RESPONSE_PAIRS) headers.set(name, value);
  headers.set("Content-Security-Policy", csp);
  if (noStore) headers.set("Cache-Control", "no-store");
}

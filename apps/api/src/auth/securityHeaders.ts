import type { MiddlewareHandler } from "hono";

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
    const headers: Record<string, string> = { ...EVERY_RESPONSE };
    const html = c.res.headers.get("content-type")?.startsWith("text/html") ?? false;
    headers["Content-Security-Policy"] = html ? DASHBOARD_CSP : RESOURCE_CSP;
    if (c.req.path.startsWith("/api/") && !c.res.headers.has("cache-control")) {
      headers["Cache-Control"] = "no-store";
    }
    try {
      for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
    } catch {
      // A response with immutable headers (one passed through from fetch): copy it, then set.
      const copy = new Response(c.res.body, c.res);
      for (const [name, value] of Object.entries(headers)) copy.headers.set(name, value);
      c.res = undefined;
      c.res = copy;
    }
  };
}

import { allows, type Need } from "@llmgw/contract";
import type { StoredSession } from "@llmgw/store";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { forbidden, unauthorized } from "../errors";
import { addressedToLoopback, crossSiteRefusal, csrfRefusal } from "./guards";
import type { Auth } from "./index";
import { ANONYMOUS, LOCAL, type Principal } from "./principal";
import { endpointOf, needOf } from "./rules";
import { clearedSessionCookie, overHttps, sessionCookieOf } from "./sessionBook";
import type { KnownToken } from "./tokenBook";

type Authenticated = { principal: Principal; token: KnownToken; session: StoredSession | null };

/**
 * The one place requests are authorized. Finds the endpoint Hono will run, reads the least it asks
 * from the ACCESS table, and lets the request through only when the caller has it. Sets `actor`
 * (audit entries' `by`) and `principal` for the handlers, which hold no checks of their own.
 *
 * 401 when no valid credentials came (none, unknown, revoked, expired); 403 when they did and the
 * role is too low, an agent token is used off its one route, or a change comes from another site.
 */
export function authorize(auth: Auth): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const need = needOf(endpointOf(c));
    const crossSite = crossSiteRefusal(c);
    if (crossSite) throw crossSite;
    if (need === "public") {
      c.set("actor", ANONYMOUS.name);
      c.set("principal", ANONYMOUS);
      c.set("token", null);
      return next();
    }
    if (!(await auth.tokens.required())) {
      if (!addressedToLoopback(c)) {
        throw forbidden(
          "this server has no tokens, so it answers only requests addressed to a loopback name (localhost, 127.0.0.1); configure a token to serve other names",
        );
      }
      c.set("actor", LOCAL.name);
      c.set("principal", LOCAL);
      c.set("token", null);
      return next();
    }
    const found = await authenticate(c, auth);
    const { principal } = found;
    if (!allows(principal.role, need)) throw forbidden(refusal(principal, need));
    if (principal.via === "session") {
      const csrf = csrfRefusal(c);
      if (csrf) throw csrf;
    }
    c.set("actor", principal.name);
    c.set("principal", principal);
    c.set("token", found.token);
    await next();
    // Only a request that succeeded counts as a use: a refusal writes nothing to the store.
    if (c.res.status >= 400) return;
    // An event stream is watching, not using: it does not keep a session alive. It is closed when
    // the session would expire (the browser reconnects, and the check runs again).
    const watching = c.res.headers.get("content-type")?.startsWith("text/event-stream") ?? false;
    await Promise.all([
      auth.tokens.used(found.token),
      found.session && !watching ? auth.sessions.used(found.session) : undefined,
    ]).catch((err: unknown) =>
      auth.log.error(
        { err, requestId: c.get("requestId"), token: principal.name },
        "recording a token's use failed",
      ),
    );
    if (watching)
      auth.streams.follow(c, principal, found.session ? auth.sessions.msLeft(found.session) : null);
  };
}

async function authenticate(c: Context, auth: Auth): Promise<Authenticated> {
  const header = c.req.header("authorization");
  if (header !== undefined) {
    const bearer = /^Bearer +(\S+) *$/i.exec(header)?.[1];
    if (bearer === undefined) throw unauthorized("send the token as Authorization: Bearer <token>", true);
    const token = await auth.tokens.bySecret(bearer);
    if (!token) throw unauthorized("the token is not valid: unknown, revoked or mistyped", true);
    return { token, session: null, principal: principalOf(token, "bearer", null) };
  }
  const cookie = sessionCookieOf(c);
  if (cookie !== undefined) {
    const open = await auth.sessions.resolve(cookie);
    if (!open) {
      throw unauthorized(
        "the session has ended (expired, signed out or its token revoked); sign in again",
        true,
        {
          "Set-Cookie": clearedSessionCookie(overHttps(c.req)),
        },
      );
    }
    const { token, session } = open;
    return { token, session, principal: principalOf(token, "session", session.idSha256) };
  }
  throw unauthorized("sign in, or send a token as Authorization: Bearer <token>", false);
}

function principalOf(token: KnownToken, via: "bearer" | "session", session: string | null): Principal {
  return { name: token.name, role: token.role, via, origin: token.origin, session };
}

function refusal(principal: Principal, need: Need): string {
  if (principal.role === "agent")
    return `${principal.name} is an agent token: it may only post heartbeats and read mirror files`;
  if (principal.role === "client")
    return `${principal.name} is a client token: it may only call the request path (/v1)`;
  if (need === "agent") return "only an agent token may post heartbeats";
  return `this needs the ${need} role; ${principal.name} is ${principal.role === "admin" ? "an" : "a"} ${principal.role}`;
}

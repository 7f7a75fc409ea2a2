import { allows, isEventStream, type Need } from "@llmgw/contract";
import type { StoredSession } from "@llmgw/store";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { forbidden, unauthorized } from "../errors";
import type { Auth } from "./auth";
import { addressedToLoopback, type Caller, crossSiteRefusal, csrfRefusal } from "./guards";
import { ANONYMOUS, LOCAL, type Principal } from "./principal";
import { endpointOf, needOf } from "./rules";
import { clearedSessionCookie, overHttps, sessionCookieOf } from "./sessionBook";
import type { KnownToken } from "./tokenBook";

type Authenticated = { principal: Principal; token: KnownToken; session: StoredSession | null };

/** Who a request proved to be: the principal, and the token and session that proved it (if any). */
export type Admitted = { principal: Principal; token: KnownToken | null; session: StoredSession | null };

const PUBLIC: Admitted = { principal: ANONYMOUS, token: null, session: null };
const OPEN: Admitted = { principal: LOCAL, token: null, session: null };

/**
 * The one place requests are authorized. Finds the endpoint Hono will run, reads the least it asks
 * from the ACCESS table, and lets the request through only when the caller has it. Sets `actor`
 * (audit entries' `by`) and `principal` for the handlers, which hold no checks of their own. The
 * request path (/v1, its own small app) asks `admitCaller` itself, its need fixed per route.
 */
export function authorize(auth: Auth): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const admitted = await admitCaller(auth, c.req, needOf(endpointOf(c)));
    c.set("actor", admitted.principal.name);
    c.set("principal", admitted.principal);
    c.set("token", admitted.token);
    if (admitted.token === null) return next();
    await next();
    // Only a request that succeeded counts as a use: a refusal writes nothing to the store.
    if (c.res.status >= 400) return;
    // An event stream is watching, not using: it does not keep a session alive. It is closed when
    // the session would expire (the browser reconnects, and the check runs again).
    const watching = isEventStream(c.res.headers.get("content-type"));
    await recordUse(auth, admitted, watching, c.get("requestId"));
    if (watching) {
      const { principal, session } = admitted;
      auth.streams.follow(c, principal, session ? auth.sessions.msLeft(session) : null);
    }
  };
}

/**
 * Whether `req` may reach an endpoint that asks `need`, and as whom. 401 when no valid credentials
 * came (none, unknown, revoked, expired); 403 when they did and the role is too low, an agent token
 * is used off its one route, or a change comes from another site.
 */
export async function admitCaller(auth: Auth, req: Caller, need: Need): Promise<Admitted> {
  const crossSite = crossSiteRefusal(req);
  if (crossSite) throw crossSite;
  if (need === "public") return PUBLIC;
  if (!(await auth.tokens.required())) {
    if (!addressedToLoopback(req)) {
      throw forbidden(
        "this server has no tokens, so it answers only requests addressed to a loopback name (localhost, 127.0.0.1); configure a token to serve other names",
      );
    }
    return OPEN;
  }
  const found = await authenticate(req, auth);
  const { principal } = found;
  if (!allows(principal.role, need)) throw forbidden(refusal(principal, need));
  if (principal.via === "session") {
    const csrf = csrfRefusal(req);
    if (csrf) throw csrf;
  }
  return found;
}

/** A request that succeeded is its token's use (and its session's, unless it only watches). */
export async function recordUse(
  auth: Auth,
  admitted: Admitted,
  watching: boolean,
  requestId: string,
): Promise<void> {
  if (admitted.token === null) return;
  await Promise.all([
    auth.tokens.used(admitted.token),
    admitted.session && !watching ? auth.sessions.used(admitted.session) : undefined,
  ]).catch((err: unknown) =>
    auth.log.error({ err, requestId, token: admitted.principal.name }, "recording a token's use failed"),
  );
}

async function authenticate(req: Caller, auth: Auth): Promise<Authenticated> {
  const header = req.header("authorization");
  if (header !== undefined) {
    const bearer = /^Bearer +(\S+) *$/i.exec(header)?.[1];
    if (bearer === undefined) throw unauthorized("send the token as Authorization: Bearer <token>", true);
    const token = await auth.tokens.bySecret(bearer);
    if (!token) throw unauthorized("the token is not valid: unknown, revoked or mistyped", true);
    return { token, session: null, principal: principalOf(token, "bearer", null) };
  }
  const cookie = sessionCookieOf(req);
  if (cookie !== undefined) {
    const open = await auth.sessions.resolve(cookie);
    if (!open) {
      throw unauthorized(
        "the session has ended (expired, signed out or its token revoked); sign in again",
        true,
        {
          "Set-Cookie": clearedSessionCookie(overHttps(req)),
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

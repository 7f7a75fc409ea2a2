import { contract } from "@llmgw/contract";
import type { MiddlewareHandler } from "hono";
import type { Auth } from "../auth";
import { clientAddress } from "../auth/rateLimit";
import { clearedSessionCookie, overHttps, sessionCookie, sessionCookieOf } from "../auth/sessionBook";
import type { Deps } from "../deps";
import type { AppEnv } from "../env";
import { AppError, forbidden, unauthorized } from "../errors";
import { handlers } from "./handlers";

/**
 * The dashboard's sign-in: a token pasted once becomes an httpOnly session cookie (design in
 * auth/README.md). Signing in and out are public routes; `GET` needs a session or a token.
 */
export function sessionRoutes(deps: Deps, auth: Auth) {
  /** Before the body is read, so malformed attempts count too. */
  const limited: MiddlewareHandler<AppEnv> = async (c, next) => {
    const wait = auth.signIns.take(clientAddress(c), deps.now().getTime());
    if (wait > 0) {
      throw new AppError({
        code: "rate_limited",
        message: `too many sign-in attempts from this address; try again in ${wait} s`,
        headers: { "Retry-After": String(wait) },
      });
    }
    await next();
  };

  return handlers(contract.session, {
    get: (c) => {
      const { name, role, via } = c.get("principal");
      return { name, role, via, tokensRequired: via !== "open" };
    },
    signIn: {
      before: [limited],
      handle: async (c, { body }) => {
        const token = await auth.tokens.bySecret(body.token);
        if (!token) throw unauthorized("that token is not valid: unknown, revoked or mistyped", true);
        if (token.role === "agent") {
          throw forbidden("agent tokens post heartbeats; they cannot sign in to the dashboard");
        }
        if (token.role === "client") {
          throw forbidden("client tokens call the request path (/v1); they cannot sign in to the dashboard");
        }
        c.header("Set-Cookie", sessionCookie(await auth.sessions.open(token), overHttps(c.req)));
        await auth.tokens.used(token);
        return { name: token.name, role: token.role, via: "session" as const, tokensRequired: true };
      },
    },
    signOut: async (c) => {
      const cookie = sessionCookieOf(c.req);
      const ended = cookie === undefined ? null : await auth.sessions.close(cookie);
      if (ended) auth.streams.endSession(ended);
      c.header("Set-Cookie", clearedSessionCookie(overHttps(c.req)));
      return null;
    },
  });
}

import { Hono, type MiddlewareHandler } from "hono";
import type { Auth } from "../auth";
import { clientAddress } from "../auth/rateLimit";
import type { SessionView } from "../auth/schemas";
import { signInSchema } from "../auth/schemas";
import { clearedSessionCookie, overHttps, sessionCookie, sessionCookieOf } from "../auth/sessionBook";
import type { Deps } from "../deps";
import type { AppEnv } from "../env";
import { AppError, forbidden, unauthorized } from "../errors";
import { jsonBody } from "../validate";

/**
 * The dashboard's sign-in: a token pasted once becomes an httpOnly session cookie (design in
 * auth/README.md). Signing in and out are public routes; `GET` needs a session or a token.
 */
export function sessionRoutes(deps: Deps, auth: Auth) {
  /** Before the body is read, so malformed attempts count too. */
  const limited: MiddlewareHandler = async (c, next) => {
    const wait = auth.signIns.take(clientAddress(c), deps.now().getTime());
    if (wait > 0) {
      throw new AppError(
        429,
        "rate_limited",
        `too many sign-in attempts from this address; try again in ${wait} s`,
        undefined,
        undefined,
        { "Retry-After": String(wait) },
      );
    }
    await next();
  };

  return new Hono<AppEnv>()
    .get("/", (c) => {
      const { name, role, via } = c.get("principal");
      return c.json({ name, role, via, tokensRequired: via !== "open" } satisfies SessionView);
    })
    .post("/", limited, jsonBody(signInSchema), async (c) => {
      const token = await auth.tokens.bySecret(c.req.valid("json").token);
      if (!token) throw unauthorized("that token is not valid: unknown, revoked or mistyped", true);
      if (token.role === "agent") {
        throw forbidden("agent tokens post heartbeats; they cannot sign in to the dashboard");
      }
      if (token.role === "client") {
        throw forbidden("client tokens call the request path (/v1); they cannot sign in to the dashboard");
      }
      c.header("Set-Cookie", sessionCookie(await auth.sessions.open(token), overHttps(c.req)));
      await auth.tokens.used(token);
      const view: SessionView = { name: token.name, role: token.role, via: "session", tokensRequired: true };
      return c.json(view);
    })
    .delete("/", async (c) => {
      const cookie = sessionCookieOf(c);
      const ended = cookie === undefined ? null : await auth.sessions.close(cookie);
      if (ended) auth.streams.endSession(ended);
      c.header("Set-Cookie", clearedSessionCookie(overHttps(c.req)));
      return c.body(null, 204);
    });
}

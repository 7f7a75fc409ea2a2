import type { StoredSession } from "@llmgw/store";
import { parse, serialize } from "hono/utils/cookie";
import type { Deps } from "../deps";
import { newSessionId, sameDigest, sha256Hex } from "./secrets";
import type { KnownToken, TokenBook } from "./tokenBook";

export const SESSION_COOKIE = "llmgw_session";

/** However busy, a session ends a week after sign-in: a stolen cookie does not live for ever. */
export const SESSION_MAX_SECONDS = 7 * 24 * 60 * 60;

/** A session id as newSessionId makes it (base64url of 32 bytes); anything else is not looked up. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export type OpenSession = { token: KnownToken; session: StoredSession };

/**
 * Browser sessions, server-side: the cookie holds a random id, the store its SHA-256, the token's
 * name and hash, and when it was last used. Expiry is idle time (config `sessionTtlSeconds`, default
 * 12 h) and SESSION_MAX_SECONDS since sign-in. The token is looked up on every request, so a role
 * change or a revocation applies at once; revoking a token deletes its sessions.
 */
export class SessionBook {
  constructor(
    private readonly deps: Deps,
    private readonly tokens: TokenBook,
  ) {}

  get #idleMs(): number {
    return this.deps.config.sessionTtlSeconds * 1000;
  }

  /** Starts a session for `token` and returns the id for the cookie. Expired sessions go meanwhile. */
  async open(token: KnownToken): Promise<string> {
    const id = newSessionId();
    const now = this.deps.now();
    const at = now.toISOString();
    await this.deps.store.transaction(async (tx) => {
      await tx.sessions.removeExpired(
        new Date(now.getTime() - this.#idleMs).toISOString(),
        new Date(now.getTime() - SESSION_MAX_SECONDS * 1000).toISOString(),
      );
      await tx.sessions.insert({
        idSha256: sha256Hex(id),
        token: token.name,
        tokenSha256: token.sha256,
        createdAt: at,
        lastSeenAt: at,
      });
    });
    return id;
  }

  /**
   * The live session this cookie value names, with its token, or null. Reads only: an expired row is
   * left for the next sign-in to clear, so a refused request writes nothing.
   */
  async resolve(id: string): Promise<OpenSession | null> {
    if (!SESSION_ID.test(id)) return null;
    const session = await this.deps.store.sessions.get(sha256Hex(id));
    if (!session) return null;
    const now = this.deps.now().getTime();
    if (now - Date.parse(session.lastSeenAt) > this.#idleMs) return null;
    if (now - Date.parse(session.createdAt) > SESSION_MAX_SECONDS * 1000) return null;
    const token = await this.tokens.byName(session.token);
    if (!token || !sameDigest(token.sha256, session.tokenSha256)) return null;
    return { token, session };
  }

  /**
   * Slides the idle timeout after a successful request. Written when a quarter of the timeout (at
   * most a minute) has passed since the last write, so a page's bursts of requests write once.
   */
  async used(session: StoredSession): Promise<void> {
    const now = this.deps.now();
    const every = Math.min(60_000, this.#idleMs / 4);
    if (now.getTime() - Date.parse(session.lastSeenAt) < every) return;
    await this.deps.store.sessions.touch(session.idSha256, now.toISOString());
  }

  /** How long until the session ends unless used again, in ms. */
  msLeft(session: StoredSession): number {
    const ends = Math.min(
      Date.parse(session.lastSeenAt) + this.#idleMs,
      Date.parse(session.createdAt) + SESSION_MAX_SECONDS * 1000,
    );
    return Math.max(0, ends - this.deps.now().getTime());
  }

  /** Ends the session this cookie value names, if any; returns its id hash. */
  async close(id: string): Promise<string | null> {
    if (!SESSION_ID.test(id)) return null;
    const hash = sha256Hex(id);
    return (await this.deps.store.sessions.remove(hash)) ? hash : null;
  }
}

/**
 * The Set-Cookie value: httpOnly (no script reads it), SameSite=Strict (no other site's page sends
 * it), Path=/ (the SSE stream and the API share it), and Secure when the request came over HTTPS.
 * No Max-Age: it also goes when the browser closes; the server's expiry is what counts.
 */
export function sessionCookie(id: string, secure: boolean): string {
  return serialize(SESSION_COOKIE, id, { path: "/", httpOnly: true, sameSite: "Strict", secure });
}

/** The Set-Cookie value that removes it (sign-out, or a refusal of an ended session). */
export function clearedSessionCookie(secure: boolean): string {
  return serialize(SESSION_COOKIE, "", { path: "/", httpOnly: true, sameSite: "Strict", secure, maxAge: 0 });
}

/** The session id a request's `Cookie` header carries, if any. */
export function sessionCookieOf(req: Pick<RequestLine, "header">): string | undefined {
  const cookie = req.header("cookie");
  return cookie ? parse(cookie, SESSION_COOKIE)[SESSION_COOKIE] : undefined;
}

/** What the request says of itself: Hono's request (`c.req`), or the request path's own. */
export type RequestLine = { url: string; header(name: string): string | undefined };

/**
 * HTTPS as the client saw it: the URL's scheme, or `X-Forwarded-Proto: https` from a TLS-terminating
 * proxy. Trusting the header is safe here because it can only add `Secure` (a forged one makes the
 * forger's own cookie unusable over plain HTTP); it never removes it.
 */
export function overHttps(req: RequestLine): boolean {
  if (new URL(req.url).protocol === "https:") return true;
  const forwarded = req.header("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  return forwarded === "https";
}

import type { Role } from "../config";

/** Who is asking, once the middleware has checked. */
export type Principal = {
  /** The token's name; "local" on a server without tokens. Audit entries' `by`. */
  name: string;
  role: Role;
  /** How the request proved it: nothing to prove (no tokens), a bearer token, or a session cookie. */
  via: "open" | "bearer" | "session";
  /** Where the token is declared: the file (read-only) or the store (created through the API). */
  origin: "config" | "runtime" | null;
  /** The SHA-256 of the session id, when signed in through a cookie. */
  session: string | null;
};

/** A server without tokens accepts every request on loopback, as this. */
export const LOCAL: Principal = { name: "local", role: "admin", via: "open", origin: null, session: null };

/** A request to a public route (sign-in, health, the dashboard's files): nobody has been asked. */
export const ANONYMOUS: Principal = {
  name: "anonymous",
  role: "viewer",
  via: "open",
  origin: null,
  session: null,
};

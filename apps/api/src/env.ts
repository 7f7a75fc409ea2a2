import type { Principal } from "./auth/principal";
import type { KnownToken } from "./auth/tokenBook";

/**
 * What middleware puts on the context for handlers: which request this is and who is asking.
 * `actor` is the audit entries' `by` (the token's name, or "local" on a server without tokens);
 * `principal` adds the role and how the request proved it (for the session and token routes).
 */
export type AppEnv = {
  Variables: {
    actor: string;
    principal: Principal;
    /** The token that proved it; none on a server without tokens and on public routes. */
    token: KnownToken | null;
    /** The request's `X-Request-Id`, the client's or a new one: its log lines carry it. */
    requestId: string;
  };
};

import type { Deps } from "../deps";
import { LiveStreams } from "./liveStreams";
import { RateLimit } from "./rateLimit";
import { SessionBook } from "./sessionBook";
import { TokenBook } from "./tokenBook";

export { authorize } from "./middleware";
export { securityHeaders } from "./securityHeaders";

/** Sign-in attempts per client address per minute (SPEC is silent; OWASP API4 asks for a limit). */
export const SIGN_INS_PER_MINUTE = 10;

/** Everything authentication keeps for one app: tokens, sessions, the sign-in limit, open streams. */
export type Auth = {
  tokens: TokenBook;
  sessions: SessionBook;
  signIns: RateLimit;
  streams: LiveStreams;
};

export function createAuth(deps: Deps): Auth {
  const tokens = new TokenBook(deps);
  return {
    tokens,
    sessions: new SessionBook(deps, tokens),
    signIns: new RateLimit(SIGN_INS_PER_MINUTE, 60_000),
    streams: new LiveStreams(),
  };
}

import type { Deps } from "../deps";
import { AgentBindings } from "./agentNodes";
import type { Auth } from "./auth";
import { ClientLimits } from "./clientLimits";
import { LiveStreams } from "./liveStreams";
import { RateLimit } from "./rateLimit";
import { SessionBook } from "./sessionBook";
import { TokenBook } from "./tokenBook";

export type { Auth } from "./auth";
export { authorize } from "./middleware";
export { securityHeaders } from "./securityHeaders";

/** Sign-in attempts per client address per minute (SPEC is silent; OWASP API4 asks for a limit). */
export const SIGN_INS_PER_MINUTE = 10;

/**
 * Heartbeats per agent token in 10 s: two intervals' worth of routine beats plus the reports an
 * agent sends at once when a replica changes state (SPEC §8.3); past it a 429 with Retry-After.
 */
export const HEARTBEATS_PER_10S = 20;

export function createAuth(deps: Deps, limits: { heartbeatsPer10s?: number | undefined } = {}): Auth {
  const tokens = new TokenBook(deps);
  return {
    tokens,
    sessions: new SessionBook(deps, tokens),
    signIns: new RateLimit(SIGN_INS_PER_MINUTE, 60_000),
    streams: new LiveStreams(),
    agents: new AgentBindings(deps, tokens),
    heartbeats: new RateLimit(limits.heartbeatsPer10s ?? HEARTBEATS_PER_10S, 10_000),
    clientLimits: new ClientLimits(() => deps.now().getTime()),
    log: deps.log,
  };
}

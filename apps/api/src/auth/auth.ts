import type { Logger } from "@llmgw/log";
import type { AgentBindings } from "./agentNodes";
import type { ClientLimits } from "./clientLimits";
import type { LiveStreams } from "./liveStreams";
import type { RateLimit } from "./rateLimit";
import type { SessionBook } from "./sessionBook";
import type { TokenBook } from "./tokenBook";

// The type alone, below index.ts (which builds it) and the middleware (which reads it), so the
// middleware does not import the module that re-exports it.

/** Everything authentication keeps for one app: tokens, sessions, the sign-in limit, open streams. */
export type Auth = {
  tokens: TokenBook;
  sessions: SessionBook;
  signIns: RateLimit;
  streams: LiveStreams;
  /** Which node each agent token speaks for. */
  agents: AgentBindings;
  /** Heartbeats per agent token. */
  heartbeats: RateLimit;
  /** A client token's models, requests a minute and concurrency, for the request path (SPEC §7.6). */
  clientLimits: ClientLimits;
  log: Logger;
};

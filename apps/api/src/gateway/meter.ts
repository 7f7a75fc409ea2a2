// The gateway's counting (SPEC §7.7), as the request path sees it: one call per request that ends
// and one per cold start. `/metrics` (prom-client) and the `model.traffic` events are built behind
// this interface; the gateway knows neither.

/** One request through the gateway, once its answer has ended (or the client went away). */
export type RequestOutcome = {
  /** The catalogue name (an alias is resolved); "" when no model was found. */
  model: string;
  /** The token's name; "local" on a server without tokens. */
  token: string;
  /** The status the client got (499 when it went away first). */
  status: number;
  /** From arrival to being sent to a replica (a wake included); 0 when sent at once. */
  queuedMs: number;
  /** From arrival to the first byte of the answer reaching the client; null when none did. */
  firstByteMs: number | null;
  /** From arrival to the end of the answer. */
  durationMs: number;
  /** From the engine's `usage`, when it reported one. */
  promptTokens: number | null;
  completionTokens: number | null;
  /** Of the prompt tokens, those the engine found cached (SPEC §7.1a), when it said. */
  cachedTokens?: number;
};

/** What the gateway holds right now, read by the meter when it reports (gauges, traffic events). */
export type GatewayNow = {
  /** Per catalogue model: requests in flight, queued, the longest wait (ms) and whether it waits for a replica. */
  models: ReadonlyMap<
    string,
    { inFlight: number; queued: number; longestWaitMs: number | null; waking: boolean }
  >;
  /** Requests in flight per token name. */
  tokens: ReadonlyMap<string, number>;
};

export interface GatewayMeter {
  finished(outcome: RequestOutcome): void;
  /** A woken model's first replica turned ready, `ms` after the wake this process recorded. */
  coldStart(model: string, ms: number): void;
}

/** Counts nothing: for a gateway without metrics (unit tests of routing). */
export const NO_METER: GatewayMeter = { finished: () => {}, coldStart: () => {} };

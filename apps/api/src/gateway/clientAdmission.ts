import type { Model } from "@llmgw/domain";
import type { KnownToken } from "../auth/tokenBook";

/**
 * Whether a client token may send this request now (SPEC §4: its `models`, `requestsPerMinute`
 * and `concurrency`), asked once the model is resolved. `inFlight` is how many of the token's
 * requests are in flight now, this one not counted (the gateway keeps that one count: TokenFlights).
 * Throws a refusal (403 `model_not_allowed`, 429 `rate_limited` with a Retry-After header). It holds
 * nothing for the request: what a request holds until it ends is its token's count in flight and
 * its budget's reservation (budget/tokenBudgets.ts), which the gateway releases.
 */
export interface ClientAdmission {
  admit(token: KnownToken | null, model: Model, inFlight?: number): void;
}

/** Lets every request through: a server whose tokens carry no limits. */
export const OPEN_ADMISSION: ClientAdmission = { admit: () => {} };

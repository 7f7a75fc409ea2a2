import type { Model } from "@llmgw/domain";
import type { KnownToken } from "../auth/tokenBook";

/**
 * Whether a client token may send this request now (SPEC §4: its `models`, `requestsPerMinute`
 * and `concurrency`), asked once the model is resolved. `inFlight` is how many of the token's
 * requests are in flight now, this one not counted (the gateway keeps that one count: TokenFlights).
 * Throws a refusal (403 `model_not_allowed`, 429 `rate_limited` with a Retry-After header);
 * otherwise returns what to call when the request ends (answered, failed, or the client gone),
 * exactly once.
 */
export interface ClientAdmission {
  admit(token: KnownToken | null, model: Model, inFlight?: number): () => void;
}

/** Lets every request through: a server whose tokens carry no limits. */
export const OPEN_ADMISSION: ClientAdmission = { admit: () => () => {} };

import type { Model } from "@llmgw/domain";
import type { KnownToken } from "../auth/tokenBook";

/**
 * Whether a client token may send this request now (SPEC §4: its `models`, `requestsPerMinute`
 * and `concurrency`), asked once the model is resolved. Throws AppError 403 `model_not_allowed`,
 * or 429 `rate_limited` with a Retry-After header; otherwise returns what to call when the request
 * ends (answered, failed, or the client gone), exactly once.
 */
export interface ClientAdmission {
  admit(token: KnownToken | null, model: Model): () => void;
}

/** Lets every request through: a server whose tokens carry no limits. */
export const OPEN_ADMISSION: ClientAdmission = { admit: () => () => {} };

import { text } from "@llmgw/domain";
import { z } from "zod";
import type { Principal } from "./principal";
import { MAX_SECRET_LENGTH } from "./secrets";
import type { Role } from "./tokenRules";

export { type TokenCreate, tokenCreateSchema } from "./tokenRules";

/** `POST /session`: the token pasted into the sign-in page. */
export const signInSchema = z.strictObject({
  token: text().min(1, "paste a token").max(MAX_SECRET_LENGTH, "longer than any llmgw token"),
});

/** A token as `GET /tokens` shows it: never its secret, never its hash. */
export type TokenView = {
  name: string;
  role: Role;
  /** "config": declared in llmgw.yaml (revoke it there); "runtime": created through the API. */
  origin: "config" | "runtime";
  createdAt: string | null;
  createdBy: string | null;
  lastUsedAt: string | null;
  /** An agent token's node: the one it was made for, else the one its first heartbeat bound; null for other roles. */
  node: string | null;
} & TokenLimits;

/** A client token's limits (SPEC §4); null for every other role, and for a limit it does not have. */
export type TokenLimits = {
  /** The catalogue names or aliases it may call; null: every model. */
  models: string[] | null;
  requestsPerMinute: number | null;
  concurrency: number | null;
};

/** `POST /tokens`'s answer: the only time the secret is shown. */
export type CreatedToken = TokenView & { token: string };

/** `GET /session` and a sign-in's answer. */
export type SessionView = {
  name: string;
  role: Role;
  via: Principal["via"];
  /** False on a server without tokens: everyone on loopback is `local`, an admin. */
  tokensRequired: boolean;
};

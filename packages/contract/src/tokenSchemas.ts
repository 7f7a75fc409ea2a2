import { text } from "@llmgw/domain";
import { z } from "zod";
import { MAX_SECRET_LENGTH, roleSchema } from "./tokenRules";

// Browser-safe (no Node, no Hono): the contract's request and answer shapes for sessions and tokens.

export { type TokenCreate, tokenCreateSchema } from "./tokenRules";

/** `POST /session`: the token pasted into the sign-in page. */
export const signInSchema = z.strictObject({
  token: text().min(1, "paste a token").max(MAX_SECRET_LENGTH, "longer than any llmgw token"),
});

/** A client token's limits (SPEC §4); null for every other role, and for a limit it does not have. */
const tokenLimitsSchema = z.object({
  /** The catalogue names or aliases it may call; null: every model. */
  models: z.array(z.string()).nullable(),
  requestsPerMinute: z.number().int().nullable(),
  concurrency: z.number().int().nullable(),
  /** Tokens a UTC day (SPEC §12.3); null: no budget. */
  tokensPerDay: z.number().int().nullable(),
});
export type TokenLimits = z.infer<typeof tokenLimitsSchema>;

/** A token as `GET /tokens` shows it: never its secret, never its hash. */
export const tokenViewSchema = tokenLimitsSchema.extend({
  name: z.string(),
  role: roleSchema,
  /** "config": declared in llmgw.yaml (revoke it there); "runtime": created through the API. */
  origin: z.enum(["config", "runtime"]),
  createdAt: z.string().nullable(),
  createdBy: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  /** An agent token's node: the one it was made for, else the one its first heartbeat bound; null for other roles. */
  node: z.string().nullable(),
  /**
   * A client token's tokens the engines reported since 00:00 UTC (SPEC §12.3), reservations and
   * leases not included; null for every other role.
   */
  tokensUsedToday: z.number().int().nullable(),
});
export type TokenView = z.infer<typeof tokenViewSchema>;

/** `POST /tokens`'s answer: the only time the secret is shown. */
export const createdTokenSchema = tokenViewSchema.extend({ token: z.string() });
export type CreatedToken = z.infer<typeof createdTokenSchema>;

/** `GET /session` and a sign-in's answer. */
export const sessionViewSchema = z.object({
  name: z.string(),
  role: roleSchema,
  /** How the request proved who it is: nothing to prove (no tokens), a bearer token, a cookie. */
  via: z.enum(["open", "bearer", "session"]),
  /** False on a server without tokens: everyone on loopback is `local`, an admin. */
  tokensRequired: z.boolean(),
});
export type SessionView = z.infer<typeof sessionViewSchema>;

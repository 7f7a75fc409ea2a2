import { modelName, nodeName, text } from "@llmgw/domain";
import { z } from "zod";

// Browser-safe (no Node, no Hono): what a token may be, for llmgw.yaml, `POST /tokens` and the
// dashboard's form (`@llmgw/contract`), so the rule is written once.

export const roleSchema = z.enum(["viewer", "operator", "admin", "agent", "client"]);
export type Role = z.infer<typeof roleSchema>;

/**
 * Audit entries name these as `by` for the token-less server, the file and the autoscaler (SPEC
 * §9.5): no token may take them.
 */
export const RESERVED_ACTORS = ["local", "config", "autoscaler"] as const;

export const tokenNameSchema = text()
  .regex(/^[A-Za-z0-9._:-]{1,64}$/, "1–64 characters of letters, digits and . _ : -")
  .refine((name) => !(RESERVED_ACTORS as readonly string[]).includes(name), {
    message: `"local", "config" and "autoscaler" are reserved: audit entries use them for the token-less server, the file and the autoscaler`,
  });

/** The node an agent token speaks for (SPEC §4); only agent tokens have one. */
export const tokenNodeSchema = nodeName;

/** Longer than any token llmgw makes: a bigger one is refused before it is hashed. */
export const MAX_SECRET_LENGTH = 512;

/** A client token lists at most this many models (names or aliases). */
export const MAX_TOKEN_MODELS = 256;
/** Beyond these a limit is no limit; a typo of a few zeros should not pass for one. */
export const MAX_REQUESTS_PER_MINUTE = 1_000_000;
export const MAX_CONCURRENCY = 100_000;
/** A day's budget past this is no budget (SPEC §12.3); it also keeps sums far from 2^53. */
export const MAX_TOKENS_PER_DAY = 1_000_000_000_000;

/**
 * The models a client token may call, by catalogue name or alias (SPEC §4). Absent is every model;
 * an empty list would be a token that can call nothing, so it is refused rather than kept.
 */
export const tokenModelsSchema = z
  .array(modelName)
  .min(1, "list at least one model, or leave models out for every model")
  .max(MAX_TOKEN_MODELS, `at most ${MAX_TOKEN_MODELS} models`)
  .superRefine((models, ctx) => {
    const seen = new Set<string>();
    for (const [i, model] of models.entries()) {
      if (seen.has(model)) ctx.addIssue({ code: "custom", message: `${model} is listed twice`, path: [i] });
      seen.add(model);
    }
  });

export const requestsPerMinuteSchema = z
  .int("a whole number of requests")
  .min(1, "at least 1; leave it out for no limit")
  .max(MAX_REQUESTS_PER_MINUTE, `at most ${MAX_REQUESTS_PER_MINUTE}`);

export const concurrencySchema = z
  .int("a whole number of requests")
  .min(1, "at least 1; leave it out for no limit")
  .max(MAX_CONCURRENCY, `at most ${MAX_CONCURRENCY}`);

/** A client token's tokens a UTC day (SPEC §12.3). */
export const tokensPerDaySchema = z
  .int("a whole number of tokens")
  .min(1, "at least 1; leave it out for no budget")
  .max(MAX_TOKENS_PER_DAY, `at most ${MAX_TOKENS_PER_DAY}`);

/** The fields a token has besides its secret, as the file and `POST /tokens` take them. */
export const tokenFields = {
  name: tokenNameSchema,
  role: roleSchema,
  node: tokenNodeSchema.optional(),
  // null is the same as absent: no list, no limit (a form's empty field).
  models: tokenModelsSchema.nullable().optional(),
  requestsPerMinute: requestsPerMinuteSchema.nullable().optional(),
  concurrency: concurrencySchema.nullable().optional(),
  tokensPerDay: tokensPerDaySchema.nullable().optional(),
};

type RoleBound = {
  role: Role;
  node?: string | undefined;
  models?: string[] | null | undefined;
  requestsPerMinute?: number | null | undefined;
  concurrency?: number | null | undefined;
  tokensPerDay?: number | null | undefined;
};

/** Which fields belong to which role: a node to an agent token, models and limits to a client's. */
const ONLY_FOR = [
  ["node", "agent", "only an agent token is bound to a node"],
  ["models", "client", "only a client token lists models"],
  ["requestsPerMinute", "client", "only a client token has a request limit"],
  ["concurrency", "client", "only a client token has a concurrency limit"],
  ["tokensPerDay", "client", "only a client token has a budget of tokens"],
] as const satisfies readonly (readonly [keyof RoleBound, Role, string])[];

/** Adds an issue naming each field the token's role does not have. */
export function fieldsOfItsRole(token: RoleBound, ctx: z.RefinementCtx): void {
  for (const [field, role, message] of ONLY_FOR) {
    const value = token[field];
    if (value !== undefined && value !== null && token.role !== role)
      ctx.addIssue({ code: "custom", message, path: [field] });
  }
}

/** `POST /tokens`: the secret is made by the server, never chosen by the client. */
export const tokenCreateSchema = z.strictObject(tokenFields).superRefine(fieldsOfItsRole);
export type TokenCreate = z.infer<typeof tokenCreateSchema>;

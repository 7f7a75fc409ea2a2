/** What middleware puts on the context for handlers: who is asking, for audit entries' `by`. */
export type AppEnv = { Variables: { actor: string } };

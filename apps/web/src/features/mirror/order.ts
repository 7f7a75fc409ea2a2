import type { MirrorEntry } from "@llmgw/domain";

/**
 * What an operator can serve comes first; the versions the plan refuses follow. Each group keeps
 * the server's order, so a version does not jump about as its download progresses.
 */
export const servableFirst = (entries: readonly MirrorEntry[]): MirrorEntry[] =>
  entries.toSorted((a, b) => Number(a.plan.refusal !== null) - Number(b.plan.refusal !== null));

import type { AuditEntry } from "@llmgw/domain";
import type { Deps } from "../deps";

/** How many of the newest entries a read gets when it does not say. */
export const AUDIT_PAGE = 200;

/** The newest audit entries, of one model or of everything. */
export function listAudit({
  deps,
  input,
}: {
  deps: Deps;
  input: { model?: string | undefined; limit?: number | undefined };
}): Promise<AuditEntry[]> {
  const { model, limit } = input;
  return deps.store.audit.list({ ...(model ? { model } : {}), limit: limit ?? AUDIT_PAGE });
}

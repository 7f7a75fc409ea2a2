import type { Deps } from "../deps";

/** Whether the store answers: what `/healthz` reports, for a load balancer or an orchestrator. */
export async function health({ deps }: { deps: Deps }) {
  try {
    await deps.store.sql.query("select 1");
    return { ok: true, store: deps.store.kind };
  } catch {
    return { ok: false, store: deps.store.kind, error: "the store does not answer" };
  }
}

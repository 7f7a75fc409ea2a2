import { type Quota, type QuotaUsage, quotaLimitsSchema, quotaUsage } from "@llmgw/domain";
import { Hono } from "hono";
import type { Deps } from "../deps";
import type { AppEnv } from "../env";
import { commit } from "../services/commit";
import { jsonBody } from "../validate";
import type { Snapshot } from "../world";

function usageOf(snap: Snapshot, quota: Quota): QuotaUsage {
  return { ...quota, used: quotaUsage(quota.owner, snap.index) };
}

export function quotaRoutes(deps: Deps) {
  return new Hono<AppEnv>()
    .get("/", async (c) => {
      const snap = await deps.world.snapshot();
      return c.json(snap.quotas.map((q) => usageOf(snap, q)));
    })
    .put("/:owner", jsonBody(quotaLimitsSchema), async (c) => {
      const owner = c.req.param("owner");
      const snap = await deps.world.snapshot();
      const before = snap.quotas.find((q) => q.owner === owner) ?? null;
      const at = deps.now().toISOString();
      const by = c.get("actor");
      const view = await commit(deps, async (tx) => {
        const stored = await tx.quotas.put({ owner, ...c.req.valid("json") });
        await tx.audit.append([
          { at, by, action: "quota", target: owner, field: null, before, after: stored, version: null },
        ]);
        const view = usageOf(snap, stored);
        return { result: view, events: [{ type: "quota.changed", data: view }] };
      });
      return c.json(view);
    });
}

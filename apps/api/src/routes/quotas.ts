import { type Quota, type QuotaUsage, quotaLimitsSchema, quotaSchema, quotaUsage } from "@llmgw/domain";
import { Hono } from "hono";
import type { Deps } from "../deps";
import type { AppEnv } from "../env";
import { badRequest } from "../errors";
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
      // The store refuses an owner the schema refuses: checked here, that is a 400 and not a 500.
      const checked = quotaSchema.shape.owner.safeParse(owner);
      if (!checked.success) {
        const problem = checked.error.issues[0]?.message ?? "not a valid owner";
        throw badRequest(`the owner is not valid: ${problem}`, { owner: problem });
      }
      const snap = await deps.world.snapshot();
      const before = snap.quotas.find((q) => q.owner === owner) ?? null;
      const at = deps.now().toISOString();
      const by = c.get("actor");
      const view = await commit(deps, async (tx) => {
        const stored = await tx.quotas.put({ owner, ...c.req.valid("json") });
        await tx.audit.append([
          { at, by, action: "quota", target: owner, field: null, before, after: stored },
        ]);
        const view = usageOf(snap, stored);
        return { result: view, events: [{ type: "quota.changed", data: view }] };
      });
      return c.json(view);
    });
}

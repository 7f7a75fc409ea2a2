import { text } from "@llmgw/domain";
import { Hono } from "hono";
import { z } from "zod";
import type { Deps } from "../deps";
import type { AppEnv } from "../env";
import { queryOf } from "../validate";

const auditQuery = z.strictObject({
  model: text().min(1).max(128).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export function auditRoutes(deps: Deps) {
  return new Hono<AppEnv>().get("/", queryOf(auditQuery), async (c) => {
    const { model, limit } = c.req.valid("query");
    return c.json(await deps.store.audit.list({ ...(model ? { model } : {}), limit: limit ?? 200 }));
  });
}

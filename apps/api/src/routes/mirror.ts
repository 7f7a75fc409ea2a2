import { Hono } from "hono";
import { z } from "zod";
import type { Deps } from "../deps";
import type { AppEnv } from "../env";
import { mirrorEntries, planOf } from "../services/mirrorPlans";
import { queryOf } from "../validate";

const planQuery = z.strictObject({ ctxPool: z.coerce.number().int().positive().max(10_000_000).optional() });

export function mirrorRoutes(deps: Deps) {
  return new Hono<AppEnv>()
    .get("/", async (c) => c.json(await mirrorEntries(deps)))
    .get("/:model/:version/plan", queryOf(planQuery), async (c) => {
      const { ctxPool } = c.req.valid("query");
      return c.json(await planOf(deps, c.req.param("model"), c.req.param("version"), ctxPool));
    });
}

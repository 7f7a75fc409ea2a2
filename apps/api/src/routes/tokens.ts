import { Hono } from "hono";
import type { Auth } from "../auth";
import { tokenCreateSchema } from "../auth/schemas";
import { createToken, listTokens, revokeToken } from "../auth/tokenActions";
import type { Deps } from "../deps";
import type { AppEnv } from "../env";
import { jsonBody } from "../validate";

/** Admins' tokens (the ACCESS table in auth/rules.ts says who; these handlers do not check). */
export function tokenRoutes(deps: Deps, auth: Auth) {
  return new Hono<AppEnv>()
    .get("/", async (c) => c.json(await listTokens(auth)))
    .post("/", jsonBody(tokenCreateSchema), async (c) => {
      const created = await createToken(deps, auth, { input: c.req.valid("json"), by: c.get("actor") });
      c.header("Location", `/api/v1/tokens/${encodeURIComponent(created.name)}`);
      return c.json(created, 201);
    })
    .delete("/:name", async (c) => {
      await revokeToken(deps, auth, { name: c.req.param("name"), by: c.get("actor") });
      return c.body(null, 204);
    });
}

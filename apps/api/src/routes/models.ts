import {
  headroomSchema,
  modelInputSchema,
  modelPatchSchema,
  modeOf,
  targetRequestSchema,
} from "@llmgw/domain";
import { Hono } from "hono";
import { sendBody } from "../body";
import type { Deps } from "../deps";
import type { AppEnv } from "../env";
import { AppError, notFound } from "../errors";
import { createModel } from "../services/createModel";
import { etagOf, parseIfMatch, patchModel } from "../services/patchModel";
import { removeModel } from "../services/removeModel";
import { target } from "../services/target";
import { wake } from "../services/wake";
import { jsonBody } from "../validate";
import { modelView } from "../world";

export function modelRoutes(deps: Deps) {
  return new Hono<AppEnv>()
    .get("/", async (c) => {
      return sendBody(c, (await deps.world.snapshot()).modelsBody);
    })
    .post("/", jsonBody(modelInputSchema), async (c) => {
      const view = await createModel({ deps, input: c.req.valid("json"), by: c.get("actor") });
      c.header("ETag", etagOf(view));
      c.header("Location", `/api/v1/models/${encodeURIComponent(view.name)}`);
      return c.json(view, 201);
    })
    .get("/:name", async (c) => {
      const snap = await deps.world.snapshot();
      const model = snap.modelsByName.get(c.req.param("name"));
      if (!model) throw notFound(`a model called ${c.req.param("name")}`);
      c.header("ETag", etagOf(model));
      return c.json(modelView(snap, model));
    })
    .patch("/:name", jsonBody(modelPatchSchema), async (c) => {
      const view = await patchModel({
        deps,
        name: c.req.param("name"),
        ifMatch: parseIfMatch(c.req.header("if-match")),
        patch: c.req.valid("json"),
        by: c.get("actor"),
      });
      c.header("ETag", etagOf(view));
      return c.json(view);
    })
    .delete("/:name", async (c) => {
      await removeModel({ deps, name: c.req.param("name"), by: c.get("actor") });
      return c.body(null, 204);
    })
    .get("/:name/headroom", async (c) => {
      const snap = await deps.world.snapshot();
      const room = snap.headroom.get(c.req.param("name"));
      if (!room) throw notFound(`a model called ${c.req.param("name")}`);
      return c.json(headroomSchema.parse(room));
    })
    .post("/:name/target", jsonBody(targetRequestSchema), async (c) => {
      const { replicas, dryRun } = c.req.valid("json");
      return c.json(await target({ deps, name: c.req.param("name"), replicas, dryRun, by: c.get("actor") }));
    })
    .post("/:name/wake", async (c) => {
      const snap = await deps.world.snapshot();
      const model = snap.modelsByName.get(c.req.param("name"));
      if (!model) throw notFound(`a model called ${c.req.param("name")}`);
      if (modeOf(model.scaling) !== "ondemand") {
        throw new AppError(
          409,
          "conflict",
          `${model.name} is not an on-demand model (it is ${modeOf(model.scaling)})`,
        );
      }
      const now = deps.now();
      await wake({ deps, model, at: now });
      return c.json({ model: model.name, wokenAt: now.toISOString() }, 202);
    });
}

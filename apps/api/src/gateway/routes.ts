import { modeOf } from "@llmgw/domain";
import { Hono } from "hono";
import type { Deps } from "../deps";
import type { AppEnv } from "../env";
import { modelNamed, openAiModel, servedModels } from "./catalogue";
import { GatewayError } from "./errors";
import type { Gateway } from "./gateway";

/**
 * The request path's routes (SPEC §7), mounted at /v1 outside /api. The three OpenAI endpoints
 * are named for the route table and the API description; any other POST whose body names a model
 * is routed the same way, so a client of a newer API works without a gateway release.
 */
export function gatewayRoutes(deps: Deps, gateway: Gateway) {
  return new Hono<AppEnv>()
    .get("/models", async (c) => c.json({ object: "list", data: servedModels(await deps.world.snapshot()) }))
    .get("/models/:model", async (c) => {
      const model = modelNamed(await deps.world.snapshot(), c.req.param("model"));
      if (modeOf(model.scaling) === "stopped")
        throw new GatewayError(404, "model_not_found", `${model.name} is stopped: it serves no requests`);
      return c.json(openAiModel(model));
    })
    .post("/chat/completions", (c) => gateway.handle(c))
    .post("/completions", (c) => gateway.handle(c))
    .post("/embeddings", (c) => gateway.handle(c))
    .post("/*", (c) => gateway.handle(c))
    .all("/*", (c) => {
      throw new GatewayError(404, "not_found", `no such endpoint: ${c.req.method} ${c.req.path}`);
    });
}

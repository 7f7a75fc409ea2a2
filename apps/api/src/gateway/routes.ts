import { contract } from "@llmgw/contract";
import { modeOf } from "@llmgw/domain";
import type { Deps } from "../deps";
import { handlers } from "../routes/handlers";
import { modelNamed, openAiModel, servedModels } from "./catalogue";
import { GatewayError } from "./errors";
import type { Gateway } from "./gateway";

/**
 * The request path's routes (SPEC §7), outside /api. The three OpenAI endpoints are named for the
 * access table and the API description; any other POST whose body names a model is routed the
 * same way, so a client of a newer API works without a gateway release.
 */
export function gatewayRoutes(deps: Deps, gateway: Gateway) {
  const routed = (c: Parameters<Gateway["handle"]>[0]) => gateway.handle(c);
  return handlers(contract.inference, {
    models: async () => ({ object: "list", data: servedModels(await deps.world.snapshot()) }) as const,
    model: async (_c, { param }) => {
      const model = modelNamed(await deps.world.snapshot(), param.model);
      if (modeOf(model.scaling) === "stopped")
        throw new GatewayError(404, "model_not_found", `${model.name} is stopped: it serves no requests`);
      return openAiModel(model);
    },
    chat: routed,
    completions: routed,
    embeddings: routed,
    other: routed,
    notFound: (c) => {
      throw new GatewayError(404, "not_found", `no such endpoint: ${c.req.method} ${c.req.path}`);
    },
  });
}

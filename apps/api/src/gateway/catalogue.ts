import type { OpenAiModel } from "@llmgw/contract";
import { type Model, stoppedReason } from "@llmgw/domain";
import type { Snapshot } from "../world";
import { GatewayError } from "./errors";

const byNameOrAlias = new WeakMap<Snapshot, Map<string, Model>>();

/**
 * The model a request asks for, by its name or one of its aliases (they share one namespace), or
 * OpenAI's 404 model_not_found; the API's own "by name or 404" is services/modelNamed.ts.
 */
export function modelAsked(snap: Snapshot, name: string): Model {
  let names = byNameOrAlias.get(snap);
  if (!names) {
    names = new Map();
    for (const model of snap.models) {
      names.set(model.name, model);
      for (const alias of model.aliases) names.set(alias, model);
    }
    byNameOrAlias.set(snap, names);
  }
  const model = names.get(name);
  if (!model)
    throw new GatewayError({
      code: "model_not_found",
      message: `no model is called ${JSON.stringify(name)} (by name or alias)`,
    });
  return model;
}

export function openAiModel(model: Model): OpenAiModel {
  return {
    id: model.name,
    object: "model",
    created: Math.floor(Date.parse(model.updatedAt) / 1000) || 0,
    owned_by: model.owner || "llmgw",
    llmgw: { aliases: model.aliases },
  };
}

/** Every model a client may ask for: the catalogue less the stopped ones. */
export function servedModels(snap: Snapshot): OpenAiModel[] {
  return snap.models.filter((m) => stoppedReason(m) === null).map(openAiModel);
}

/** One model a client may ask for, by name or alias: a stopped one is not listed, so not found. */
export function servedModel(snap: Snapshot, name: string): OpenAiModel {
  const model = modelAsked(snap, name);
  const stopped = stoppedReason(model);
  if (stopped !== null) throw new GatewayError({ code: "model_not_found", message: stopped });
  return openAiModel(model);
}

import type { Model } from "@llmgw/domain";
import { notFound } from "../errors";
import type { Snapshot } from "../world";

/** The 404 for a name no model in the catalogue answers to: one wording for every route. */
export const noSuchModel = (name: string) => notFound(`a model called ${name}`);

/** The model called `name` in a snapshot, or the 404. */
export function modelNamed(snap: Snapshot, name: string): Model {
  const model = snap.modelsByName.get(name);
  if (!model) throw noSuchModel(name);
  return model;
}

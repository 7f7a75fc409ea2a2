import type { Headroom, Model } from "@llmgw/domain";
import { notFound } from "../errors";
import type { Snapshot } from "../world";

/** The 404 for a name no model in the catalogue answers to: one wording for every route. */
export const noSuchModel = (name: string) => notFound(`a model called ${name}`);

/** What a snapshot holds of the model called `name`, or the 404 when it holds none. */
function named<T>(byName: ReadonlyMap<string, T>, name: string): T {
  const found = byName.get(name);
  if (found === undefined) throw noSuchModel(name);
  return found;
}

/** The model called `name` in a snapshot, or the 404. */
export const modelNamed = (snap: Snapshot, name: string): Model => named(snap.modelsByName, name);

/** The headroom of the model called `name` in a snapshot (every model there has one), or the 404. */
export const headroomNamed = (snap: Snapshot, name: string): Headroom => named(snap.headroom, name);

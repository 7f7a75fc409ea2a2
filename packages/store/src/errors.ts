import type { Model } from "@llmgw/domain";

// Typed refusals the API maps to its error shape (409, 412). Thrown, so a transaction around the
// write rolls back on its own.

/** A model name or alias already held by a model (`heldBy`, possibly the same one). */
export class NameTaken extends Error {
  override readonly name = "NameTaken";
  constructor(
    /** The name or alias that is taken. (`name` is Error's own field: the class name.) */
    readonly taken: string,
    readonly heldBy: string,
  ) {
    super(
      taken === heldBy
        ? `a model called ${taken} already exists`
        : `${taken} is already a name of the model ${heldBy}`,
    );
  }
}

/** The model's version moved since the caller read it: `current` is what is stored now. */
export class VersionConflict extends Error {
  override readonly name = "VersionConflict";
  constructor(readonly current: Model) {
    super(`${current.name} has changed meanwhile (now version ${current.version})`);
  }
}

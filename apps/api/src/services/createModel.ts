import { type Model, type ModelView, type modelInputSchema, refusedOnEveryNode } from "@llmgw/domain";
import { NameTaken } from "@llmgw/store";
import type { z } from "zod";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { modelSummary, modelView, withModel } from "../world";
import { commit } from "./commit";
import { admit, checkClass } from "./quotaAdmission";

/** Adds a model at runtime (the wizard's submit): 409 when a name is taken or a quota would pass. */
export async function createModel({
  deps,
  input,
  by,
}: {
  deps: Deps;
  /** Already checked by the route's `modelInputSchema`, defaults filled in. */
  input: z.output<typeof modelInputSchema>;
  by: string;
}): Promise<ModelView> {
  refuseArgs(input.profiles);
  const snap = await deps.world.snapshot();
  checkClass(snap, input.class);
  const at = deps.now().toISOString();
  const model: Model = { ...input, origin: "runtime", version: 1, updatedAt: at, updatedBy: by };
  let stored: Model | null = null;
  try {
    return await commit(
      deps,
      async (tx) => {
        await admit(tx, null, model);
        stored = await tx.models.insert(model);
        await tx.audit.append([
          {
            at,
            by,
            action: "create",
            target: stored.name,
            field: null,
            before: null,
            after: stored,
            version: 1,
          },
        ]);
        return {
          result: modelView(snap, stored),
          events: [{ type: "model.changed", data: modelSummary(snap, stored) }],
        };
      },
      // The model put into the picture the change was judged against, if nothing else changed it.
      () => {
        const model = stored;
        return model ? (snap) => withModel(snap, model) : null;
      },
    );
  } catch (err) {
    if (err instanceof NameTaken) throw nameTaken(err, model);
    throw err;
  }
}

/** Args no node would run, refused before the model is stored (as a PATCH does, SPEC §11.1). */
function refuseArgs(profiles: readonly Pick<Model["profiles"][number], "engine" | "args">[]): void {
  profiles.forEach((profile, i) => {
    const refused = refusedOnEveryNode(profile.engine, profile.args);
    if (refused) {
      throw new AppError({
        code: "bad_request",
        message: `profiles.${i}.args: ${refused}`,
        fields: { [`profiles.${i}.args`]: refused },
      });
    }
  });
}

export function nameTaken(err: NameTaken, model: Pick<Model, "name" | "aliases">): AppError {
  const alias = model.aliases.indexOf(err.taken);
  const field = err.taken === model.name || alias < 0 ? "name" : `aliases.${alias}`;
  return new AppError({
    code: "name_taken",
    message: err.message,
    fields: { [field]: err.message },
  });
}

import type { Pull } from "@llmgw/domain";
import type { Deps } from "../deps";
import { AppError, notFound } from "../errors";
import { removeLeftovers } from "../huggingFace/fileWriter";
import { commit, UNCHANGED } from "./commit";
import type { ControlFace } from "./control";
import { filesToWrite } from "./pullRunner";

/**
 * `DELETE /mirror/pulls/:id` (SPEC §10.4): cancels an unfinished pull, audited. Its `.part` files
 * are removed before this answers when it ran here or nowhere; a pull another process downloads
 * is stopped there at its next progress write, which that process's cleanup follows. Cancelling a
 * cancelled pull answers it again; one that completed or failed is a 409.
 */
export async function cancelPull({
  deps,
  control,
  input,
  by,
}: {
  deps: Deps;
  control: Pick<ControlFace, "cancelPull">;
  input: { id: string };
  by: string;
}): Promise<Pull> {
  const { id } = input;
  const found = await deps.store.pulls.get(id);
  if (!found) throw notFound(`a pull with id ${id}`);
  if (found.state === "cancelled") return found;
  if (found.state === "complete" || found.state === "failed") {
    throw new AppError({
      code: "conflict",
      message: `pull ${id} has already ${found.state === "complete" ? "completed" : "failed"}`,
    });
  }
  const cancelled = await commit(
    deps,
    async (tx) => {
      const done = await tx.pulls.cancel(id, `cancelled by ${by}`);
      if (!done) return { result: null, events: [] };
      await tx.audit.append([
        {
          at: deps.now().toISOString(),
          by,
          action: "mirror.pull.cancel",
          target: done.pull.model,
          field: "version",
          before: done.pull.version,
          after: null,
        },
      ]);
      return { result: done, events: [{ type: "mirror.pull", data: done.pull }] };
    },
    () => UNCHANGED,
  );
  // It ended between the read and the cancel: answer it as it ended.
  if (!cancelled) return cancelPull({ deps, control, input, by });
  if (cancelled.running === deps.origin) await control.cancelPull(id);
  else if (cancelled.running === null) {
    const problem = await removeLeftovers(filesToWrite(deps, cancelled.pull));
    if (problem) deps.log.warn({ pull: id, problem }, "a cancelled pull's leftovers stay on disk");
  }
  return cancelled.pull;
}

import {
  type ConflictBody,
  conflictBodySchema,
  type ModelPatch,
  type ModelSummary,
  type ModelView,
} from "@llmgw/domain";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ApiFailure, answer, api, segment } from "../../../lib/api";
import { withPatch } from "../card-fields";
import { modelsQueryOptions, storeModel } from "./get-models";

export type UpdateModelInput = { name: string; patch: ModelPatch; version: number };

export const updateModel = ({ name, patch, version }: UpdateModelInput): Promise<ModelView> =>
  answer(
    api.models[":name"].$patch(
      { param: { name: segment(name) }, json: patch },
      { headers: { "If-Match": `"${version}"` } },
    ),
  );

/** The 412's body when a PATCH was stale: the model as it is now and who changed what since. */
export function conflictOf(error: unknown): ConflictBody | null {
  if (!(error instanceof ApiFailure) || error.status !== 412) return null;
  const parsed = conflictBodySchema.safeParse(error.body);
  return parsed.success ? parsed.data : null;
}

/**
 * Optimistic: the card shows the edit at once. On a refusal that model alone goes back to what it
 * was (other models may have changed meanwhile and keep their news); on a 412 it goes to the
 * server's current view, which the card then compares with the operator's edit.
 */
export function useUpdateModel() {
  const client = useQueryClient();
  const listKey = modelsQueryOptions().queryKey;
  return useMutation({
    mutationFn: updateModel,
    onMutate: async ({ name, patch }) => {
      await client.cancelQueries({ queryKey: listKey });
      const before = client.getQueryData(listKey)?.find((m) => m.name === name);
      const apply = (m: ModelSummary) => (m.name === name ? withPatch(m, patch) : m);
      client.setQueryData(listKey, (list) => list?.map(apply));
      return { before };
    },
    onError: (error, { name }, context) => {
      const conflict = conflictOf(error);
      const restore = conflict?.current ?? context?.before;
      if (!restore) return;
      // Unless a newer version arrived on the stream meanwhile, which is then the truth.
      const replace = (m: ModelSummary) => (m.name === name && m.version <= restore.version ? restore : m);
      client.setQueryData(listKey, (list) => list?.map(replace));
    },
    onSuccess: (model) => storeModel(client, model),
  });
}

import type { ModelInput, ModelView } from "@llmgw/domain";
import { useMutation } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const createModel = (input: ModelInput): Promise<ModelView> =>
  answer(api.models.$post({ json: input }));

/** The new model reaches the catalogue's cache through the caller (and the event stream). */
export function useCreateModel(onCreated: (model: ModelView) => void) {
  return useMutation({ mutationFn: createModel, onSuccess: onCreated });
}

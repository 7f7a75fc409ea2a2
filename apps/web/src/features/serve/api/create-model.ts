import type { ModelInput, ModelView } from "@llmgw/domain";
import { useMutation } from "@tanstack/react-query";
import { createModel as fetchCreate } from "../../../lib/api";

export const createModel = (input: ModelInput): Promise<ModelView> => fetchCreate(input);

/** The new model reaches the catalogue's cache through the caller (and the event stream). */
export function useCreateModel(onCreated: (model: ModelView) => void) {
  return useMutation({ mutationFn: createModel, onSuccess: onCreated });
}

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { answer, api, segment } from "../../../lib/api";
import { forgetModel } from "./get-models";

export const deleteModel = (name: string): Promise<void> =>
  answer(api.models[":name"].$delete({ param: { name: segment(name) } }));

export function useDeleteModel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteModel,
    onSuccess: (_nothing, name) => forgetModel(client, name),
  });
}

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { deleteModel as fetchDelete } from "../../../lib/api";
import { forgetModel } from "./get-models";

export const deleteModel = (name: string): Promise<void> => fetchDelete(name);

export function useDeleteModel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteModel,
    onSuccess: (_nothing, name) => forgetModel(client, name),
  });
}

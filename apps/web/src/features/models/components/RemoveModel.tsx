import { ConfirmAction } from "../../../components/ConfirmAction";
import { useDeleteModel } from "../api/delete-model";

/** Removing a model is two clicks: the first asks, the second does. */
export function RemoveModel({ name }: { name: string }) {
  const remove = useDeleteModel();
  return (
    <ConfirmAction
      verb="Remove"
      name={name}
      pending={remove.isPending}
      error={remove.isError ? remove.error : null}
      onConfirm={() => remove.mutate(name)}
      testIds={{ ask: "model-remove", confirm: "model-remove-confirm" }}
    />
  );
}

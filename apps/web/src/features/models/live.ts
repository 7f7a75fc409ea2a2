import type { ModelView, Replica } from "@llmgw/domain";
import type { QueryClient } from "@tanstack/react-query";
import { atMostEvery, type LiveStream } from "../../lib/live";
import { forgetModel, modelsQueryOptions, storeModel } from "./api/get-models";
import { updateModelMutationKey } from "./api/update-model";

/**
 * A changed model replaces its view at once. A replica change moves that replica inside its
 * model's view straight away (the card's count should not wait), and then the views are refetched,
 * throttled, because headroom depends on the whole fleet and only the server computes it.
 */
export function subscribeModels(client: QueryClient, live: LiveStream): () => void {
  // A refetch landing while an optimistic edit is out would flash the old values; wait for it.
  const refresh: () => void = atMostEvery(250, () => {
    if (client.isMutating({ mutationKey: updateModelMutationKey }) > 0) {
      setTimeout(refresh, 250);
      return;
    }
    void client.invalidateQueries({ queryKey: modelsQueryOptions().queryKey });
  });
  const offs = [
    // One model's class, need or removal moves the others' headroom (what they outrank, what is free).
    live.on("model.changed", (model) => {
      storeModel(client, model);
      refresh();
    }),
    live.on("model.removed", ({ name }) => {
      forgetModel(client, name);
      refresh();
    }),
    live.on("node.changed", refresh),
    live.on("quota.changed", refresh),
    live.on("replica.changed", (replica) => {
      client.setQueryData(modelsQueryOptions().queryKey, (list) =>
        list?.map((m) => (m.name === replica.model ? withReplica(m, replica) : m)),
      );
      refresh();
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}

function withReplica(model: ModelView, replica: Replica & { removed?: boolean }): ModelView {
  if (replica.removed) return { ...model, replicas: model.replicas.filter((r) => r.id !== replica.id) };
  const { removed: _removed, ...fresh } = replica;
  const held = model.replicas.some((r) => r.id === fresh.id);
  const replicas = held
    ? model.replicas.map((r) => (r.id === fresh.id ? fresh : r))
    : [...model.replicas, fresh];
  return { ...model, replicas };
}

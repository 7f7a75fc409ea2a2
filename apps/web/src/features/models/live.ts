import type { ModelSummary, Replica } from "@llmgw/domain";
import type { QueryClient } from "@tanstack/react-query";
import type { LiveStream } from "../../lib/live";
import { noteModel, scaling } from "../../lib/scaling";
import { forgetModel, modelsQueryOptions, storeModel } from "./api/get-models";
import { followBenchProgress } from "./bench-progress";

/**
 * The catalogue follows its own events: a changed model replaces its view, a removed one leaves,
 * and a replica change moves that replica inside its model's view. Nothing here refetches the
 * list. The one part of a view that other changes move is its headroom (it depends on the whole
 * fleet), and the capacity feature keeps that live in its own, smaller query; refetching all of
 * the catalogue's views for every fleet event (2 MB with 500 models) kept the page busy parsing
 * and rendering what had not changed. So a view's `headroom` here is as of its last event or fetch;
 * a card reads its counts from the live list (`useModelHeadroom`).
 *
 * An autoscaled model's line (`autoscale`) follows `model.autoscale`, and every change of its
 * running or wanted replicas is noted for its card's chart (lib/scaling.ts).
 */
export function subscribeModels(client: QueryClient, live: LiveStream): () => void {
  const key = modelsQueryOptions().queryKey;
  const noted = (name: string) => {
    const model = client.getQueryData(key)?.find((m) => m.name === name);
    if (model) noteModel(scaling, model);
  };
  const offs = [
    live.on("model.changed", (model) => {
      storeModel(client, model);
      noted(model.name);
    }),
    live.on("model.removed", ({ name }) => {
      forgetModel(client, name);
      scaling.forget(name);
    }),
    live.on("replica.changed", (replica) => {
      client.setQueryData(key, (list) =>
        list?.map((m) => (m.name === replica.model ? withReplica(m, replica) : m)),
      );
      noted(replica.model);
    }),
    live.on("model.autoscale", ({ model, autoscale }) => {
      client.setQueryData(key, (list) => list?.map((m) => (m.name === model ? { ...m, autoscale } : m)));
      noted(model);
    }),
    followBenchProgress(live),
  ];
  return () => {
    for (const off of offs) off();
  };
}

function withReplica(model: ModelSummary, replica: Replica & { removed?: boolean }): ModelSummary {
  if (replica.removed) return { ...model, replicas: model.replicas.filter((r) => r.id !== replica.id) };
  const { removed: _removed, ...fresh } = replica;
  const held = model.replicas.some((r) => r.id === fresh.id);
  const replicas = held
    ? model.replicas.map((r) => (r.id === fresh.id ? fresh : r))
    : [...model.replicas, fresh];
  return { ...model, replicas };
}

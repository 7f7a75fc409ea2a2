import type { BenchStarted } from "@llmgw/domain";
import { useMutation } from "@tanstack/react-query";
import { answer, api, segment } from "../../../lib/api";

/** "Measure": the server benches the model in the background; progress comes as `model.bench` events. */
export const startBench = (name: string): Promise<BenchStarted> =>
  answer(api.models[":name"].bench.$post({ param: { name: segment(name) }, json: {} }));

export function useStartBench() {
  return useMutation({ mutationFn: startBench });
}

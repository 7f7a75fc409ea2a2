import type { NodeView } from "@llmgw/domain";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { answer, api, segment } from "../../../lib/api";
import { storeNode } from "./get-nodes";

/** No new replicas there; the scheduler moves its replicas elsewhere (SPEC §3). */
export const drainNode = (name: string): Promise<NodeView> =>
  answer(api.fleet.nodes[":name"].drain.$post({ param: { name: segment(name) } }));

export function useDrainNode() {
  const client = useQueryClient();
  return useMutation({ mutationFn: drainNode, onSuccess: (node) => storeNode(client, node) });
}

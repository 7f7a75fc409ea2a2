import type { NodeView } from "@llmgw/domain";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { answer, api, segment } from "../../../lib/api";
import { storeNode } from "./get-nodes";

/** A drained node takes replicas again. */
export const resumeNode = (name: string): Promise<NodeView> =>
  answer(api.fleet.nodes[":name"].resume.$post({ param: { name: segment(name) } }));

export function useResumeNode() {
  const client = useQueryClient();
  return useMutation({ mutationFn: resumeNode, onSuccess: (node) => storeNode(client, node) });
}

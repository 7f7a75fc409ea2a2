import { contract } from "@llmgw/contract";
import { useCreateToken } from "../features/tokens/api/create-token";
import { useMayCall } from "../lib/session";

/**
 * How the join steps make a node's agent token: an admin's, named and bound to the node (SPEC §4),
 * answering its secret; null for a role that may not make tokens.
 */
export function useAgentTokenMaker(): ((node: string) => Promise<string>) | null {
  const mayCreate = useMayCall(contract.tokens.create);
  const create = useCreateToken();
  if (!mayCreate) return null;
  return (node) => create.mutateAsync({ name: node, role: "agent", node }).then((made) => made.token);
}

import { contract } from "@llmgw/contract";
import type { NodeView } from "@llmgw/domain";
import { ActionError } from "../../../components/ActionError";
import { ConfirmAction } from "../../../components/ConfirmAction";
import { useMayCall } from "../../../lib/session";
import { useDrainNode } from "../api/drain-node";
import { useResumeNode } from "../api/resume-node";

/**
 * Drain a ready node (two clicks: its replicas move elsewhere) or resume a draining one, for the
 * roles the server lets do it; a down node has neither.
 */
export function NodeActions({ node }: { node: NodeView }) {
  const mayDrain = useMayCall(contract.fleet.drain);
  const mayResume = useMayCall(contract.fleet.resume);
  const drain = useDrainNode();
  const resume = useResumeNode();

  if (node.state === "ready" && mayDrain)
    return (
      <div className="actions">
        <ConfirmAction
          verb="Drain"
          name={node.name}
          pending={drain.isPending}
          error={drain.isError ? drain.error : null}
          onConfirm={() => drain.mutate(node.name)}
          testIds={{ ask: "node-drain", confirm: "node-drain-confirm" }}
        />
      </div>
    );
  if (node.state === "draining" && mayResume)
    return (
      <div className="actions">
        <button
          type="button"
          disabled={resume.isPending}
          onClick={() => resume.mutate(node.name)}
          data-testid="node-resume"
        >
          Resume {node.name}
        </button>
        <ActionError error={resume.isError ? resume.error : null} />
      </div>
    );
  return null;
}

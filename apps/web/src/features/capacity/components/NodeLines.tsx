import type { HeadroomNode, HeadroomSummary, WhyNotCause } from "@llmgw/domain";
import { useModelHeadroom } from "../api/get-model-headroom";

/** A node that fits only by preempting says so: its room costs other models' replicas. */
function nodeLine(n: HeadroomNode): string {
  if (n.fitFree > 0) {
    return `fits ${n.fitFree} now${n.fitPreempt > n.fitFree ? `, ${n.fitPreempt} by preempting` : ""}`;
  }
  if (n.fitPreempt > 0) return `fits ${n.fitPreempt} only by preempting`;
  return n.reason ?? "holds none";
}

/** Each cause as a sentence about its nodes, for one node and for several: "8 nodes lack the engine". */
const CAUSE_WORDS: Record<WhyNotCause, readonly [string, string]> = {
  selector: ["does not match the node selector", "do not match the node selector"],
  engine: ["lacks the engine", "lack the engine"],
  "no memory reported": ["reports no memory", "report no memory"],
  "no cores reported": ["reports no cores", "report no cores"],
  "not ready": ["is not ready", "are not ready"],
  "short of memory": ["is short of memory", "are short of memory"],
  "short of cores": ["is short of cores", "are short of cores"],
  "short of GPUs": ["is short of GPUs", "are short of GPUs"],
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

type Props = { headroom: HeadroomSummary; open: boolean; onToggle: (open: boolean) => void };

/**
 * Why nodes hold none of a model, grouped by cause with one example each (what lists carry), and
 * every node's line on request: that list grows with the fleet, so it is fetched only when opened.
 * Whether it is open is the caller's to keep: a card on a long board is drawn only near the view.
 */
export function NodeLines({ headroom, open, onToggle }: Props) {
  const lines = useModelHeadroom(headroom.model, open);
  const holdingNone = headroom.whyNot.reduce((sum, w) => sum + w.nodes, 0);
  return (
    <div className="node-reasons">
      {headroom.whyNot.length > 0 && (
        <ul
          className="plain-list"
          data-testid="headroom-why-not"
          aria-label={`Why nodes hold none of ${headroom.model}`}
        >
          {headroom.whyNot.map((w) => (
            <li key={w.cause} data-testid={`why-not-${w.cause.replaceAll(" ", "-")}`}>
              <strong>{plural(w.nodes, "node")}</strong> {CAUSE_WORDS[w.cause][w.nodes === 1 ? 0 : 1]}{" "}
              <span className="muted">(e.g. {w.example})</span>
            </li>
          ))}
        </ul>
      )}
      <details data-testid="headroom-nodes" open={open} onToggle={(e) => onToggle(e.currentTarget.open)}>
        <summary>
          {holdingNone === 0 ? "Every node, one by one" : `Every node, one by one (${holdingNone} hold none)`}
        </summary>
        {lines.isPending && open && <p className="muted">Loading the nodes…</p>}
        {lines.isError && <p role="alert">Could not load the nodes: {String(lines.error.message)}</p>}
        {lines.data && (
          <ul className="plain-list">
            {lines.data.nodes.map((n) => (
              <li key={n.node} data-testid={`headroom-node-${n.node}`}>
                <strong>{n.node}</strong>: {nodeLine(n)}
              </li>
            ))}
          </ul>
        )}
      </details>
    </div>
  );
}

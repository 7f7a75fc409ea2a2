import type { Class, NodeView, Replica } from "@llmgw/domain";
import { Legend } from "../../../components/StackedBar";
import { Empty } from "../../../components/Status";
import { byRank, classTone, UNMANAGED } from "../../../lib/classes";
import { useNow } from "../../../lib/use-now";
import { NodeCard } from "./NodeCard";

type Props = { nodes: NodeView[]; replicas: Replica[]; classes: Class[] };

export function NodeList({ nodes, replicas, classes }: Props) {
  const now = useNow();
  const pending = replicas.filter((r) => r.node === null);
  if (nodes.length === 0)
    return <Empty>No node has reported yet. Start an agent: llmgw agent --server URL.</Empty>;
  return (
    <>
      <Legend
        items={[
          ...byRank(classes).map((c) => ({ key: c.name, label: c.name, tone: classTone(c.name, classes) })),
          { key: UNMANAGED, label: UNMANAGED, tone: classTone(UNMANAGED, classes) },
          { key: "free", label: "free", tone: "var(--track)" },
        ]}
      />
      {pending.length > 0 && (
        <section
          className="notice notice-warn"
          aria-labelledby="pending-title"
          data-testid="pending-replicas"
        >
          <h2 id="pending-title" className="section-title">
            {pending.length} replica{pending.length === 1 ? "" : "s"} waiting for a place
          </h2>
          <ul className="plain-list">
            {pending.map((r) => (
              <li key={r.id}>
                <strong>{r.model}</strong>: {r.reason ?? "no node fits yet"}
              </li>
            ))}
          </ul>
        </section>
      )}
      <div className="card-grid" data-testid="node-list">
        {nodes.map((node) => (
          <NodeCard
            key={node.name}
            node={node}
            replicas={replicas.filter((r) => r.node === node.name)}
            classes={classes}
            now={now}
          />
        ))}
      </div>
    </>
  );
}

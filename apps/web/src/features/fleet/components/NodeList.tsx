import { type Class, type NodeView, nodeAttention, type Replica } from "@llmgw/domain";

type NodeState = NodeView["state"];

import { useDeferredValue, useMemo, useState } from "react";
import { AttentionToggle, attentionFirst, OrderSelect } from "../../../components/AttentionToggle";
import { countText, NameSearch } from "../../../components/NameSearch";
import { Legend } from "../../../components/StackedBar";
import { Empty } from "../../../components/Status";
import { VirtualCards } from "../../../components/VirtualCards";
import { byRank, classTone, UNMANAGED } from "../../../lib/classes";
import { matchesSearch } from "../../../lib/grid";
import { setSearchParam } from "../../../lib/router";
import { useNow } from "../../../lib/use-now";
import { NodeCard, type Upgrade } from "./NodeCard";

type Props = {
  nodes: NodeView[];
  replicas: Replica[];
  classes: Class[];
  /** The address's `state=` and `attention=1`: what the Capacity page's health line links to. */
  state?: NodeState | null;
  attention?: boolean;
  /** Down and draining nodes first (the address's `order=attention`). */
  first?: boolean;
  /** The server's version and address: nodes running another agent are marked, with the upgrade line. */
  upgrade?: Upgrade | null;
};

const STATES: readonly NodeState[] = ["ready", "draining", "down"];

/** A node card's height before it is drawn, and the narrowest column (the stylesheet's `.card-grid`). */
const CARD_ESTIMATE_PX = 260;
const CARD_MIN_WIDTH_PX = 340;

const NONE: Replica[] = [];

export function NodeList({
  nodes,
  replicas,
  classes,
  state = null,
  attention = false,
  first = false,
  upgrade = null,
}: Props) {
  const now = useNow();
  const [search, setSearch] = useState("");
  // The list follows the search a moment later, so the keystroke is drawn first.
  const searched = useDeferredValue(search);
  const shown = useMemo(() => {
    const found = nodes.filter(
      (n) =>
        (state === null || n.state === state) &&
        (!attention || nodeAttention(n).length > 0) &&
        matchesSearch(searched, n.name),
    );
    return first ? attentionFirst(found, (n) => nodeAttention(n).length > 0) : found;
  }, [nodes, searched, state, attention, first]);
  const byState = useMemo(
    () => STATES.map((s) => [s, nodes.filter((n) => n.state === s).length] as const),
    [nodes],
  );
  const { pending, byNode } = useMemo(() => replicasByNode(replicas), [replicas]);
  if (nodes.length === 0)
    return <Empty>No node has reported yet: start an agent, as the guide above says.</Empty>;
  return (
    <>
      <p className="muted" data-testid="fleet-states">
        {byState.map(([s, n]) => `${n} ${s}`).join(" · ")}
      </p>
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
      <NameSearch
        id="fleet-search"
        what="the nodes"
        placeholder="node name"
        value={search}
        onChange={setSearch}
        count={countText(shown.length, nodes.length, "nodes")}
        testId="nodes-count"
      >
        <div className="field">
          <label htmlFor="fleet-state">State</label>
          <select
            id="fleet-state"
            value={state ?? ""}
            onChange={(e) => setSearchParam("state", e.target.value)}
          >
            <option value="">All states</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <OrderSelect id="fleet-order" attention={first} />
        <AttentionToggle id="fleet-attention" checked={attention} />
      </NameSearch>
      {shown.length === 0 ? (
        <Empty>No node matches the search and filters.</Empty>
      ) : (
        <VirtualCards
          items={shown}
          keyOf={(n) => n.name}
          render={(node) => (
            <NodeCard
              node={node}
              replicas={byNode.get(node.name) ?? NONE}
              classes={classes}
              now={now}
              upgrade={upgrade}
            />
          )}
          estimate={CARD_ESTIMATE_PX}
          minColumnWidth={CARD_MIN_WIDTH_PX}
          className="card-grid"
          testId="node-list"
        />
      )}
    </>
  );
}

/** Each node's replicas, and those waiting for a node: one pass, not one filter per card. */
function replicasByNode(replicas: readonly Replica[]) {
  const pending: Replica[] = [];
  const byNode = new Map<string, Replica[]>();
  for (const r of replicas) {
    if (r.node === null) pending.push(r);
    else {
      const held = byNode.get(r.node);
      if (held) held.push(r);
      else byNode.set(r.node, [r]);
    }
  }
  return { pending, byNode };
}

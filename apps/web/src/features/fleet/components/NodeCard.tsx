import type { Class, NodeView, Replica } from "@llmgw/domain";
import { counted } from "@llmgw/domain";
import { ProgressBar } from "../../../components/ReplicaProgress";
import { StackedBar } from "../../../components/StackedBar";
import { classTone, orderedUsage } from "../../../lib/classes";
import { ago, gb } from "../../../lib/units";
import { NodeActions } from "./NodeActions";

type Props = { node: NodeView; replicas: Replica[]; classes: Class[]; now: number };

export function NodeCard({ node, replicas, classes, now }: Props) {
  const rows = orderedUsage(node.usage.byClass, classes);
  const gpusUsed = rows.reduce((sum, r) => sum + r.gpus, 0);
  const titleId = `node-title-${node.name}`;
  const segments = (key: "memoryGB" | "cpuCores") =>
    rows.map((r) => ({ key: r.class, label: r.class, value: r[key], tone: classTone(r.class, classes) }));
  const labels = Object.entries(node.labels);
  return (
    <article className="card node-card" aria-labelledby={titleId} data-testid={`node-card-${node.name}`}>
      <header className="card-header">
        <h2 id={titleId} className="card-title">
          {node.name}
        </h2>
        <span className={`state state-${node.state}`} data-testid="node-state">
          {node.state}
        </span>
      </header>
      <p className="meta">
        last seen{" "}
        <time dateTime={node.lastSeen} data-testid="node-last-seen">
          {ago(node.lastSeen, now)}
        </time>
        {node.agentVersion && ` · agent ${node.agentVersion}`}
        {node.freeMemoryGB !== null && ` · agent measures ${gb(node.freeMemoryGB)} free`}
      </p>
      <div className="total-row" data-testid="node-memory">
        <div className="total-label">
          <strong>Memory</strong>
          <span className="muted">
            {node.memoryGB === 0
              ? "not reported"
              : `${gb(node.usage.free.memoryGB)} free of ${gb(node.memoryGB)}`}
          </span>
        </div>
        <StackedBar label="Memory" total={node.memoryGB} segments={segments("memoryGB")} format={gb} />
      </div>
      <div className="total-row" data-testid="node-cores">
        <div className="total-label">
          <strong>Cores</strong>
          <span className="muted">
            {node.cpuCount === 0 ? "not reported" : `${node.usage.free.cpuCores} free of ${node.cpuCount}`}
          </span>
        </div>
        <StackedBar
          label="Cores"
          total={node.cpuCount}
          segments={segments("cpuCores")}
          format={(n) => counted(n, "core")}
        />
      </div>
      <dl className="facts">
        <div>
          <dt>GPUs</dt>
          <dd data-testid="node-gpus">
            {node.gpuTotal === 0 ? "none" : `${gpusUsed} of ${node.gpuTotal} in use`}
            {node.gpuMemoryGB > 0 && ` · ${gb(node.gpuMemoryGB)} each`}
          </dd>
        </div>
        <div>
          <dt>Engines</dt>
          <dd data-testid="node-engines">
            {node.engines.length === 0 ? (
              <span className="muted">not reported</span>
            ) : (
              node.engines.map((e) => (
                <span key={e} className="chip">
                  {e}
                </span>
              ))
            )}
          </dd>
        </div>
        {labels.length > 0 && (
          <div>
            <dt>Labels</dt>
            <dd>
              {labels.map(([k, v]) => (
                <span key={k} className="chip mono">
                  {k}={v}
                </span>
              ))}
            </dd>
          </div>
        )}
      </dl>
      <NodeActions node={node} />
      {replicas.length > 0 && (
        <details className="replicas">
          <summary>{counted(replicas.length, "replica")} here</summary>
          <ul className="plain-list">
            {replicas.map((r) => (
              <li key={r.id} data-testid={`node-replica-${r.id}`}>
                <strong>{r.model}</strong> <span className={`state state-${r.state}`}>{r.state}</span>{" "}
                {r.unmanaged && (
                  <span
                    className="badge badge-unmanaged"
                    data-testid="replica-unmanaged"
                    title="Started by its agent, not placed by the scheduler: it holds what it reports and is never preempted or sent requests"
                  >
                    unmanaged
                  </span>
                )}{" "}
                <span className="muted">
                  {gb(r.memoryGB)}, {counted(r.cpuCores, "core")}
                  {r.gpus > 0 ? `, ${counted(r.gpus, "GPU")}` : ""}
                  {r.measuredMemoryGB !== null && ` · measured ${gb(r.measuredMemoryGB)}`}
                </span>
                {r.progress && <ProgressBar progress={r.progress} label={`${r.model} replica ${r.id}`} />}
                {r.reason && (
                  <span className="replica-reason" data-testid="replica-reason">
                    {r.reason}
                  </span>
                )}
              </li>
            ))}
          </ul>
        </details>
      )}
    </article>
  );
}

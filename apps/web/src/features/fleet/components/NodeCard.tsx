import type { Class, NodeView, Replica } from "@llmgw/domain";
import { agentOutdated, counted, joinCommand } from "@llmgw/domain";
import { CommandLine } from "../../../components/CommandLine";
import { ProgressBar } from "../../../components/ReplicaProgress";
import { StackedBar } from "../../../components/StackedBar";
import { classTone, orderedUsage } from "../../../lib/classes";
import { ago, gb } from "../../../lib/units";
import { NodeActions } from "./NodeActions";

/** The server's version, and the address its install script names (the upgrade line's). */
export type Upgrade = { version: string; server: string };

type Props = { node: NodeView; replicas: Replica[]; classes: Class[]; now: number; upgrade?: Upgrade | null };

export function NodeCard({ node, replicas, classes, now, upgrade = null }: Props) {
  const outdated = upgrade !== null && agentOutdated(node.agentVersion, upgrade.version);
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
        {outdated && (
          <span
            className="badge badge-warn"
            data-testid="node-outdated"
            title={`This node's agent is ${node.agentVersion || "of an unknown version"}; the server hands out ${upgrade.version}`}
          >
            agent {node.agentVersion || "unknown"} ≠ {upgrade.version}
          </span>
        )}
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
      {outdated && (
        <details className="upgrade" data-testid="node-upgrade">
          <summary>Upgrade its agent to {upgrade.version}</summary>
          <p>
            Run on {node.name} (the same line that joined it; a service keeps its token and restarts on the
            new agent):
          </p>
          <CommandLine
            line={joinCommand({ server: upgrade.server, token: null, name: node.name })}
            label={`the line that upgrades ${node.name}'s agent`}
            testId="node-upgrade-line"
          />
        </details>
      )}
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

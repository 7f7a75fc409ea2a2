import type { Replica } from "@llmgw/domain";
import { counted } from "@llmgw/domain";
import { HeadRow } from "../../../components/HeadRow";
import { ProgressBar } from "../../../components/ReplicaProgress";
import { TableScroll } from "../../../components/TableScroll";
import { gb } from "../../../lib/units";

export function ReplicaList({ replicas }: { replicas: Replica[] }) {
  if (replicas.length === 0) return <p className="muted">No replicas.</p>;
  return (
    <details className="replicas" data-testid="model-replicas">
      <summary>{counted(replicas.length, "replica")}</summary>
      <TableScroll label="Replica list">
        <table>
          <HeadRow columns={["Replica", "Node", "State", "Asked", "Measured"]} />
          <tbody>
            {replicas.map((r) => (
              <tr key={r.id} data-testid={`replica-${r.id}`}>
                <td className="mono name">{r.id}</td>
                <td className="name">{r.node ?? <span className="muted">not placed</span>}</td>
                <td>
                  <span className={`state state-${r.state}`}>{r.state}</span>
                  {r.progress && <ProgressBar progress={r.progress} label={`Replica ${r.id}`} />}
                  {r.reason && (
                    <span className="replica-reason" data-testid="replica-reason">
                      {r.reason}
                    </span>
                  )}
                </td>
                <td>{gb(r.memoryGB)}</td>
                <td>{r.measuredMemoryGB === null ? "—" : gb(r.measuredMemoryGB)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </details>
  );
}

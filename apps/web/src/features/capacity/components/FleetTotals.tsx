import type { Capacity, Class } from "@llmgw/domain";
import { counted } from "@llmgw/domain";
import { HeadRow } from "../../../components/HeadRow";
import { Legend, StackedBar } from "../../../components/StackedBar";
import { TableScroll } from "../../../components/TableScroll";
import { classTone, orderedUsage } from "../../../lib/classes";
import { gb } from "../../../lib/units";

type Props = { capacity: Capacity; classes: Class[] };

type Dimension = { key: "memoryGB" | "cpuCores" | "gpus"; label: string; format: (n: number) => string };
const DIMENSIONS: Dimension[] = [
  { key: "memoryGB", label: "Memory", format: gb },
  { key: "cpuCores", label: "Cores", format: (n) => counted(n, "core") },
  { key: "gpus", label: "GPUs", format: (n) => `${n} GPU${n === 1 ? "" : "s"}` },
];

/**
 * What replicas on draining or down nodes still hold: outside the totals above (those count ready
 * nodes only), said apart so used + free = total and the class table agree (issue 18).
 */
function ElsewhereLine({ rows }: { rows: Capacity["elsewhere"] }) {
  const held = rows.filter((r) => r.replicas > 0);
  if (held.length === 0) return null;
  const sum = (key: "replicas" | "memoryGB" | "cpuCores" | "gpus") => held.reduce((s, r) => s + r[key], 0);
  const gpus = sum("gpus");
  return (
    <p className="muted" data-testid="totals-elsewhere">
      Not counted above: {counted(sum("replicas"), "replica")} on draining or down nodes hold{" "}
      {gb(sum("memoryGB"))}, {counted(sum("cpuCores"), "core")}
      {gpus > 0 ? `, ${gpus} GPU${gpus === 1 ? "" : "s"}` : ""}.
    </p>
  );
}

/**
 * Whether there is anything to total: no node yet (and no replica held elsewhere), totals of zero
 * say nothing but zeros.
 */
export function hasTotals(capacity: Capacity): boolean {
  return (
    capacity.total.cpuCores > 0 ||
    capacity.total.memoryGB > 0 ||
    capacity.elsewhere.some((r) => r.replicas > 0)
  );
}

/** The fleet's memory, cores and GPUs: held by each class, and free. */
export function FleetTotals({ capacity, classes }: Props) {
  const rows = orderedUsage(capacity.byClass, classes);
  // A fleet without GPUs: one line says so, rather than an empty bar and a column of zeros.
  const gpus = capacity.total.gpus > 0 || rows.some((r) => r.gpus > 0);
  return (
    <section className="card totals" aria-labelledby="totals-title" data-testid="fleet-totals">
      <h2 id="totals-title">Fleet totals</h2>
      {DIMENSIONS.map((d) =>
        d.key === "gpus" && !gpus ? (
          <div className="total-row" key={d.key} data-testid={`totals-${d.key}`}>
            <div className="total-label">
              <strong>{d.label}</strong>
              <span className="muted">none in the fleet</span>
            </div>
          </div>
        ) : (
          <div className="total-row" key={d.key} data-testid={`totals-${d.key}`}>
            <div className="total-label">
              <strong>{d.label}</strong>
              <span className="muted">
                {d.format(capacity.total[d.key] - capacity.free[d.key])} used ·{" "}
                {d.format(capacity.free[d.key])} free of {d.format(capacity.total[d.key])}
              </span>
            </div>
            <StackedBar
              label={d.label}
              total={capacity.total[d.key]}
              format={d.format}
              segments={rows.map((r) => ({
                key: r.class,
                label: r.class,
                value: r[d.key],
                tone: classTone(r.class, classes),
              }))}
            />
          </div>
        ),
      )}
      <Legend
        items={[
          ...rows.map((r) => ({ key: r.class, label: r.class, tone: classTone(r.class, classes) })),
          { key: "free", label: "free", tone: "var(--track)" },
        ]}
      />
      <TableScroll label="Fleet totals table">
        <table className="compact">
          <caption className="visually-hidden">Resources held by each class</caption>
          <HeadRow columns={["Class", "Replicas", "Memory", "Cores", gpus && "GPUs"]} />
          <tbody>
            {rows.map((r) => (
              <tr key={r.class} data-testid={`totals-class-${r.class}`}>
                <th scope="row">{r.class}</th>
                <td>{r.replicas}</td>
                <td>{gb(r.memoryGB)}</td>
                <td>{r.cpuCores}</td>
                {gpus && <td>{r.gpus}</td>}
              </tr>
            ))}
            <tr data-testid="totals-free">
              <th scope="row">free</th>
              <td />
              <td>{gb(capacity.free.memoryGB)}</td>
              <td>{capacity.free.cpuCores}</td>
              {gpus && <td>{capacity.free.gpus}</td>}
            </tr>
          </tbody>
        </table>
      </TableScroll>
      <ElsewhereLine rows={capacity.elsewhere} />
    </section>
  );
}

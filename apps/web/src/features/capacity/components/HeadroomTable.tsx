import type { HeadroomSummary } from "@llmgw/domain";
import { Empty } from "../../../components/Status";
import { TableScroll } from "../../../components/TableScroll";

/** Headroom of every model in one table: the quotas page's view of what each owner could add. */
export function HeadroomTable({ headroom }: { headroom: HeadroomSummary[] }) {
  if (headroom.length === 0) return <Empty>No models to count headroom for.</Empty>;
  const dash = (n: number | null) => (n === null ? "—" : `+${n}`);
  return (
    <TableScroll label="Headroom by model">
      <table data-testid="headroom-table">
        <caption className="visually-hidden">Headroom by model</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Running</th>
            <th scope="col">Free now</th>
            <th scope="col">By preemption</th>
            <th scope="col">Quota left</th>
            <th scope="col">At most</th>
            <th scope="col">Limited by</th>
          </tr>
        </thead>
        <tbody>
          {headroom.map((h) => (
            <tr key={h.model} data-testid={`headroom-row-${h.model}`}>
              <th scope="row">{h.model}</th>
              <td>{h.current}</td>
              <td>{dash(h.free)}</td>
              <td>{dash(h.byPreemption)}</td>
              <td>{h.quotaRemaining === null ? "no limit" : h.quotaRemaining}</td>
              <td>{dash(h.total)}</td>
              <td>{h.limitedBy}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

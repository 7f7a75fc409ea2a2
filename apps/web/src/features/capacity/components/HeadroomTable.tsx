import { type HeadroomSummary, runningText } from "@llmgw/domain";
import { HeadRow } from "../../../components/HeadRow";
import { Empty } from "../../../components/Status";
import { TableScroll } from "../../../components/TableScroll";
import { headroomWords } from "../headroom-words";
import { OnlyByPreempting } from "./HeadroomAnswer";

/**
 * Headroom of every model in one table: the Quotas page's view of what each owner could add, in
 * the capacity card's words (the number that can start first, "now" and "by preempting …" beneath).
 */
export function HeadroomTable({ headroom }: { headroom: HeadroomSummary[] }) {
  if (headroom.length === 0) return <Empty>No models to count headroom for.</Empty>;
  return (
    <TableScroll label="Headroom by model">
      <table data-testid="headroom-table">
        <caption className="visually-hidden">Headroom by model</caption>
        <HeadRow columns={["Model", "Running", "Can start", "Quota left", "Limited by"]} />
        <tbody>
          {headroom.map((h) => (
            <HeadroomRow key={h.model} headroom={h} />
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

function HeadroomRow({ headroom }: { headroom: HeadroomSummary }) {
  const words = headroomWords(headroom);
  return (
    <tr data-testid={`headroom-row-${headroom.model}`}>
      <th scope="row">{headroom.model}</th>
      <td data-testid="headroom-running">{runningText(headroom)}</td>
      <td className="headroom-cell">
        {headroom.limitedBy === "unknown-need" ? (
          <span className="muted" data-testid="headroom-total">
            cannot be counted: it asks for no memory, cores or GPUs
          </span>
        ) : (
          <>
            <span className="headroom-total" data-testid="headroom-total">
              <strong>{words.big}</strong> {words.after}
              {words.onlyByPreempting && <OnlyByPreempting />}
            </span>
            <ul className="headroom-parts">
              <li data-testid="headroom-free">{words.now}</li>
              <li data-testid="headroom-preempt">{words.preempting}</li>
            </ul>
          </>
        )}
      </td>
      <td data-testid="headroom-quota">{words.quota}</td>
      <td>{headroom.limitedBy}</td>
    </tr>
  );
}

import { type AuditEntry, scaledAfterText, scaledBeforeText } from "@llmgw/domain";
import { HeadRow } from "../../../components/HeadRow";
import { Empty } from "../../../components/Status";
import { TableScroll } from "../../../components/TableScroll";
import { auditValue, benchEntryText } from "../../../lib/audit-text";
import { dateTime } from "../../../lib/units";

/** Who changed what, newest first. */
export function AuditLog({ entries }: { entries: AuditEntry[] }) {
  if (entries.length === 0) return <Empty>Nothing has been changed yet.</Empty>;
  return (
    <TableScroll label="Audit log">
      <table data-testid="audit-table">
        <caption className="visually-hidden">Audit log, newest first</caption>
        <HeadRow columns={["When", "Who", "What", "Target", "Field", "Before", "After"]} />
        <tbody>
          {entries.map((e) => (
            <tr key={e.id} data-testid="audit-entry">
              <td className="nowrap">
                <time dateTime={e.at}>{dateTime(e.at)}</time>
              </td>
              <td className="name">{e.by || "—"}</td>
              <td>{e.action}</td>
              <td className="mono name">{e.target}</td>
              <td>{e.field ?? "—"}</td>
              <td className="mono wrap">
                {(e.action === "scaled" ? scaledBeforeText(e.before) : null) ?? (
                  <AuditValue value={e.before} />
                )}
              </td>
              <td className="mono wrap">
                {e.action === "bench" ? (
                  <BenchValue value={e.after} />
                ) : (
                  ((e.action === "scaled" ? scaledAfterText(e.after) : null) ?? (
                    <AuditValue value={e.after} />
                  ))
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** Scalars inline; a whole record (what a create or a quota change stores) folded away. */
function AuditValue({ value }: { value: unknown }) {
  const flat = Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null);
  if (typeof value !== "object" || value === null || flat) return <>{auditValue(value)}</>;
  return (
    <details>
      <summary>{Array.isArray(value) ? `${value.length} items` : "record"}</summary>
      <pre className="audit-record">{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}

/** A bench entry's figures said as the card says them, the record it keeps folded beneath. */
function BenchValue({ value }: { value: unknown }) {
  return (
    <details data-testid="audit-bench">
      <summary>{benchEntryText(value)}</summary>
      <pre className="audit-record">{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}

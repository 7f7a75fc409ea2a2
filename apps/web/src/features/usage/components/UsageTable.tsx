import type { UsageKey, UsageReadingRow } from "@llmgw/domain";
import { HeadRow } from "../../../components/HeadRow";
import { TableScroll } from "../../../components/TableScroll";
import { hours, tokens } from "../figures";

type Props = { by: UsageKey; rows: UsageReadingRow[]; totals: Omit<UsageReadingRow, "at" | "key"> };

const KEY_LABEL: Record<UsageKey, string> = { model: "Model", token: "Client token", owner: "Owner" };

/**
 * The period's sums by key, largest token use first, and the period's totals (the API's) below.
 * Replica figures only by model and owner: replicas serve every token alike.
 */
export function UsageTable({ by, rows, totals }: Props) {
  const replicas = by !== "token";
  const cells = (r: Omit<UsageReadingRow, "at" | "key">) => (
    <>
      <td className="num">{r.requests.toLocaleString("en-US")}</td>
      <td className="num">{r.refused.toLocaleString("en-US")}</td>
      <td className="num">{r.failed.toLocaleString("en-US")}</td>
      <td className="num">{tokens(r.promptTokens)}</td>
      <td className="num">{tokens(r.cachedTokens)}</td>
      <td className="num">{tokens(r.completionTokens)}</td>
      {replicas && (
        <>
          <td className="num">{hours(r.replicaHours ?? 0)}</td>
          <td className="num">{hours(r.memoryGBHours ?? 0)}</td>
          <td className="num">{hours(r.coreHours ?? 0)}</td>
          <td className="num">{hours(r.gpuHours ?? 0)}</td>
        </>
      )}
    </>
  );
  return (
    <TableScroll label="Usage by key">
      <table data-testid="usage-table">
        <caption className="visually-hidden">Usage by {KEY_LABEL[by].toLowerCase()} over the period</caption>
        <HeadRow
          columns={[
            KEY_LABEL[by],
            "Requests",
            "Refused",
            "Failed",
            "Prompt tokens",
            "Cached",
            "Completion tokens",
            replicas && "Replica-hours",
            replicas && "Memory GB-hours",
            replicas && "Core-hours",
            replicas && "GPU-hours",
          ]}
        />
        <tbody>
          {rows.map((r) => (
            <tr key={r.key} data-testid="usage-row" data-key={r.key}>
              <th scope="row" className="mono name">
                {r.key}
              </th>
              {cells(r)}
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr data-testid="usage-totals">
            <th scope="row">Total</th>
            {cells(totals)}
          </tr>
        </tfoot>
      </table>
    </TableScroll>
  );
}
